package io.awscsi.launcher.kube;

/** How the startup taint removal ended. */
public sealed interface TaintRemovalOutcome {

  /** The taint was on the node and is now gone. */
  record Removed(String nodeName, int attempts) implements TaintRemovalOutcome {}

  /** The node did not carry the taint (nothing to do). */
  record NotTainted(String nodeName) implements TaintRemovalOutcome {}

  /** Removal was not attempted: opted out, no node name, or no permission. */
  record Skipped(String reason) implements TaintRemovalOutcome {}

  /** The deadline passed (or the remover was stopped) before the taint could be removed. */
  record GaveUp(String lastProblem, int attempts) implements TaintRemovalOutcome {}
}
