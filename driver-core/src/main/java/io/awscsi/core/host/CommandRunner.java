package io.awscsi.core.host;

/**
 * Runs host tools. The only way driver code starts a process, so every command is one of {@link HostTool} and has
 * a timeout. Implementations are thread safe; callers block, which is cheap on virtual threads.
 */
public interface CommandRunner {

  /**
   * Runs the command and waits for it.
   *
   * @return the result when the exit code is one of the command's accepted codes
   * @throws CommandException.Failed when the program exits with another code
   * @throws CommandException.TimedOut when it runs longer than its timeout (it is killed with its descendants)
   * @throws CommandException.NotStarted when it cannot be started
   */
  CommandResult run(Command command);
}
