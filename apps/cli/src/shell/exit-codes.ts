/**
 * The exit statuses of every assay command, by meaning; each command's usage text lists
 * the ones it uses. 4 keeps two meanings that never meet in one command: trec_eval's
 * missing topic for `assay eval`, a name conflict for the database commands.
 */
export const EXIT = {
  ok: 0,
  /** A bad command line, configuration or database, or an unknown measure. */
  usage: 1,
  /** An unreadable or malformed input file. */
  invalidInput: 2,
  /** A named collection, run, label set or job that is not there. */
  notFound: 3,
  /** Something of that name exists already, or was made another way. */
  conflict: 4,
  /**
   * `assay eval` without -c: a qrels topic the run lacks (as trec_eval); `assay retrieve
   * --strict`: a topic without results.
   */
  missingTopic: 4,
  /** Judging: some items failed (the others are labelled). */
  judgeFailed: 5,
  /** Judging: stopped by the budget or Ctrl-C with items left. */
  judgeStopped: 6,
  /** `assay retrieve` with models: failed topics, or stopped by the budget (the run holds the rest). */
  retrieveIncomplete: 5,
  /** An unexpected failure inside assay (a bug): a short message, the stack with ASSAY_DEBUG=1. */
  internal: 70,
  /** A second Ctrl-C: stopped at once. */
  interrupted: 130,
} as const;
