package io.awscsi.core.host;

import java.time.Duration;

/**
 * Why a host command did not give an accepted result. Each message is one log line an operator can act on: the
 * command line, and the exit code with the trimmed standard error, or the timeout, or why it could not start.
 */
public abstract sealed class CommandException extends RuntimeException {

  private final transient Command command;

  private CommandException(Command command, String message, Throwable cause) {
    super(message, cause);
    this.command = command;
  }

  public Command command() {
    return command;
  }

  /** The program ran and exited with a code the command does not accept. */
  public static final class Failed extends CommandException {
    private final transient CommandResult result;

    public Failed(CommandResult result) {
      super(result.command(), describe(result), null);
      this.result = result;
    }

    public CommandResult result() {
      return result;
    }

    public int exitCode() {
      return result.exitCode();
    }

    /** The trimmed standard error, or standard output when the program wrote its complaint there. */
    public String diagnostics() {
      return diagnosticsOf(result);
    }

    private static String describe(CommandResult result) {
      var diagnostics = diagnosticsOf(result);
      return "`" + result.command().commandLine() + "` exited with " + result.exitCode()
          + (diagnostics.isEmpty() ? " and printed nothing" : ": " + diagnostics);
    }

    private static String diagnosticsOf(CommandResult result) {
      var stderr = oneLine(result.stderr());
      return stderr.isEmpty() ? oneLine(result.stdout()) : stderr;
    }
  }

  /** The program did not finish in time; it and its descendants were killed. */
  public static final class TimedOut extends CommandException {
    private final transient Duration timeout;

    public TimedOut(Command command, Duration timeout, String stderrSoFar) {
      super(command, "`" + command.commandLine() + "` did not finish within " + timeout
          + " and was killed" + (oneLine(stderrSoFar).isEmpty() ? "" : "; it printed: " + oneLine(stderrSoFar)),
          null);
      this.timeout = timeout;
    }

    public Duration timeout() {
      return timeout;
    }
  }

  /** The program could not be started: not installed, not executable, or the wait was interrupted. */
  public static final class NotStarted extends CommandException {
    public NotStarted(Command command, String reason, Throwable cause) {
      super(command, "`" + command.commandLine() + "` could not run: " + reason, cause);
    }
  }

  /** Multi-line tool output folded into one log line, bounded so a chatty tool cannot flood the log. */
  static String oneLine(String text) {
    var folded = text.strip().replaceAll("\\s*\\R\\s*", " | ");
    return folded.length() <= 2000 ? folded : folded.substring(0, 2000) + "...";
  }
}
