package io.awscsi.core.lifecycle;

/** How a call relates to what was already done for the same volume (and the same path, for node calls). */
public enum Repeat {
  /** Not done before (a new target path counts as first). */
  FIRST,
  /** Done before with the same arguments. */
  SAME,
  /** Done before with other arguments (another capability, device, read-only flag or staging path). */
  CONFLICTING
}
