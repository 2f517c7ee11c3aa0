package io.awscsi.core.host;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * A command runner for tests where the real tool cannot run (nvme, mount.efs) or must not (mkfs on a device the test
 * says holds data). Records every command; answers with the latest matching rule (so a test can override a default
 * set up before it), else exit 0 and no output. Exit codes are judged like the real runner: a code the command does
 * not accept throws {@link CommandException.Failed}.
 */
public final class RecordingCommandRunner implements CommandRunner {

  /** What a fake program "printed" and how it exited. */
  public record Reply(int exitCode, String stdout, String stderr) {
    public static Reply ok(String stdout) {
      return new Reply(0, stdout, "");
    }

    public static Reply exit(int exitCode, String stderr) {
      return new Reply(exitCode, "", stderr);
    }
  }

  private record Rule(Predicate<Command> matches, Function<Command, Reply> reply) {}

  private final List<Command> commands = new ArrayList<>();
  private final List<Rule> rules = new ArrayList<>();

  /** Answers every command of this tool with the reply. */
  public RecordingCommandRunner on(HostTool tool, Reply reply) {
    return on(command -> command.tool() == tool, command -> reply);
  }

  /** Answers every matching command with a reply computed from it; later rules win over earlier ones. */
  public synchronized RecordingCommandRunner on(Predicate<Command> matches, Function<Command, Reply> reply) {
    rules.add(new Rule(matches, reply));
    return this;
  }

  @Override
  public synchronized CommandResult run(Command command) {
    commands.add(command);
    var reply = rules.reversed().stream().filter(rule -> rule.matches().test(command)).findFirst()
        .map(rule -> rule.reply().apply(command)).orElse(Reply.ok(""));
    var result = new CommandResult(command, reply.exitCode(), reply.stdout(), reply.stderr(), Duration.ZERO);
    if (!command.acceptedExitCodes().contains(reply.exitCode())) {
      throw new CommandException.Failed(result);
    }
    return result;
  }

  /** Every command run so far, in order. */
  public synchronized List<Command> commands() {
    return List.copyOf(commands);
  }

  /** Every command run so far as command lines, in order. */
  public synchronized List<String> commandLines() {
    return commands.stream().map(Command::commandLine).toList();
  }

  /** The command lines of one tool. */
  public synchronized List<String> commandLines(HostTool tool) {
    return commands.stream().filter(command -> command.tool() == tool).map(Command::commandLine).toList();
  }
}
