package io.awscsi.core.host;

import java.time.Duration;

/**
 * What a finished command produced. Only results with an accepted exit code are returned by a {@link CommandRunner};
 * other exit codes arrive as {@link CommandException.Failed}.
 */
public record CommandResult(Command command, int exitCode, String stdout, String stderr, Duration elapsed) {

  /** Whether the program exited with 0 (useful for commands that accept other exit codes, like blkid's 2). */
  public boolean succeeded() {
    return exitCode == 0;
  }
}
