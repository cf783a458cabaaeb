package io.meshinjector.engine.decision;

import java.util.Objects;

/** What happens to the pod: injected by a plan, admitted untouched, or refused. */
public sealed interface Outcome {

  record Inject(Plan plan) implements Outcome {
    public Inject {
      Objects.requireNonNull(plan, "plan");
    }
  }

  record Skip(SkipReason reason, String message) implements Outcome {
    public Skip {
      Objects.requireNonNull(reason, "reason");
      Objects.requireNonNull(message, "message");
    }
  }

  record Refuse(RefusalReason reason, String message) implements Outcome {
    public Refuse {
      Objects.requireNonNull(reason, "reason");
      Objects.requireNonNull(message, "message");
    }
  }
}
