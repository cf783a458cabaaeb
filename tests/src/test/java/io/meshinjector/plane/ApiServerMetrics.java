package io.meshinjector.plane;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The API server's own view of a webhook, from its {@code /metrics}: how often it called the
 * webhook and how long it waited, summed over the webhook names that end in a suffix (a
 * configuration's entries).
 */
public final class ApiServerMetrics {
  private static final String DURATION = "apiserver_admission_webhook_admission_duration_seconds";

  private ApiServerMetrics() {}

  /** {@code ..._admission_duration_seconds_count} over the webhooks named {@code *suffix}. */
  public static double calls(KubernetesClient admin, String suffix) {
    return read(admin, suffix).count();
  }

  public static Histogram read(KubernetesClient admin, String suffix) {
    double count = 0;
    double sum = 0;
    Map<Double, Double> buckets = new TreeMap<>();
    String name = "name=\"";
    for (String line : admin.raw("/metrics").split("\n")) {
      if (!line.startsWith(DURATION) || !line.contains(suffix + "\"")) {
        continue;
      }
      int at = line.indexOf(name);
      int end = line.indexOf('"', at + name.length());
      if (at < 0 || !line.substring(at + name.length(), end).endsWith(suffix)) {
        continue;
      }
      double value = Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      if (line.startsWith(DURATION + "_count{")) {
        count += value;
      } else if (line.startsWith(DURATION + "_sum{")) {
        sum += value;
      } else if (line.startsWith(DURATION + "_bucket{")) {
        String le = line.substring(line.indexOf("le=\"") + 4);
        le = le.substring(0, le.indexOf('"'));
        double bound = le.equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(le);
        buckets.merge(bound, value, Double::sum);
      }
    }
    return new Histogram(count, sum, buckets);
  }

  /**
   * {@code apiserver_admission_webhook_request_total} over the webhooks named {@code *suffix}:
   * every request, whatever its answer (the duration histogram counts admissions only).
   */
  public static double requests(KubernetesClient admin, String suffix) {
    double total = 0;
    for (String line : admin.raw("/metrics").split("\n")) {
      if (line.startsWith("apiserver_admission_webhook_request_total{")
          && line.contains(suffix + "\"")) {
        total += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return total;
  }

  /** Cumulative buckets, by upper bound, as Prometheus writes them. */
  public record Histogram(double count, double sum, Map<Double, Double> buckets) {
    /** What was observed between {@code before} and this. */
    public Histogram minus(Histogram before) {
      Map<Double, Double> b = new TreeMap<>();
      buckets.forEach((le, v) -> b.put(le, v - before.buckets.getOrDefault(le, 0.0)));
      return new Histogram(count - before.count, sum - before.sum, b);
    }

    public double mean() {
      return count == 0 ? Double.NaN : sum / count;
    }

    /** The upper bound of the bucket that holds quantile {@code q}. */
    public double bucketOf(double q) {
      double want = q * count;
      List<Map.Entry<Double, Double>> entries = new ArrayList<>(buckets.entrySet());
      for (Map.Entry<Double, Double> e : entries) {
        if (e.getValue() >= want && count > 0) {
          return e.getKey();
        }
      }
      return Double.NaN;
    }
  }
}
