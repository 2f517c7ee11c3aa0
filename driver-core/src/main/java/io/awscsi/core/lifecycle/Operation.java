package io.awscsi.core.lifecycle;

/** The node calls that move a volume through its lifecycle on this node. */
public enum Operation {
  NODE_STAGE,
  NODE_PUBLISH,
  NODE_UNPUBLISH,
  NODE_UNSTAGE
}
