package io.meshinjector.webhook.admission;

/**
 * Which of a revision's webhook entries a request came through, told apart by the path the API
 * server posts to.
 */
public enum Entry {
  /**
   * {@code /mutate}: an entry of one route (a tag, or this revision's own name). The API server
   * chose this revision, and it injects as asked, even where its own view of the tags lags.
   */
  ROUTED,
  /**
   * {@code /mutate/unrouted}: the catch-all, which fails open and is matched by pods of other
   * routes too; it injects only the pods no route's entry takes and that route here.
   */
  UNROUTED
}
