package io.awscsi.core.lifecycle;

/** The calls that move a volume through its lifecycle. */
public enum Operation {
  CONTROLLER_PUBLISH,
  NODE_STAGE,
  NODE_PUBLISH,
  NODE_UNPUBLISH,
  NODE_UNSTAGE,
  CONTROLLER_UNPUBLISH,
  DELETE
}
