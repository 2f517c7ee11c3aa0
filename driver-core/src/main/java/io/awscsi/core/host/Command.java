package io.awscsi.core.host;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * One invocation of a host tool: the executable, its arguments as separate strings (never a shell line, so no
 * argument can be interpreted by a shell), how long it may run, and which exit codes count as success.
 *
 * @param tool the executable, from the permitted list
 * @param arguments the arguments, each passed to the program as one argv entry
 * @param timeout after this the process and all its descendants are killed
 * @param acceptedExitCodes exit codes that are not failures ({@code blkid} uses 2 for "nothing found")
 */
public record Command(HostTool tool, List<String> arguments, Duration timeout, Set<Integer> acceptedExitCodes) {

  /** Long enough for mkfs of a large volume; callers that can hang (NFS) pass their own. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(2);

  public Command {
    Objects.requireNonNull(tool, "tool");
    arguments = List.copyOf(arguments);
    Objects.requireNonNull(timeout, "timeout");
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout must be positive, was " + timeout);
    }
    acceptedExitCodes = Set.copyOf(acceptedExitCodes);
    if (acceptedExitCodes.isEmpty()) {
      throw new IllegalArgumentException("at least one exit code must be accepted");
    }
  }

  public static Command of(HostTool tool, String... arguments) {
    return new Command(tool, List.of(arguments), DEFAULT_TIMEOUT, Set.of(0));
  }

  public static Command of(HostTool tool, List<String> arguments) {
    return new Command(tool, arguments, DEFAULT_TIMEOUT, Set.of(0));
  }

  public Command withTimeout(Duration newTimeout) {
    return new Command(tool, arguments, newTimeout, acceptedExitCodes);
  }

  /** Also treats these exit codes as success (0 stays accepted). */
  public Command acceptingExitCodes(Integer... codes) {
    var accepted = new HashSet<>(acceptedExitCodes);
    accepted.addAll(List.of(codes));
    return new Command(tool, arguments, timeout, accepted);
  }

  /** The command as an operator would type it; arguments with spaces or quotes are single-quoted. */
  public String commandLine() {
    var words = new ArrayList<String>(arguments.size() + 1);
    words.add(tool.executable());
    arguments.forEach(argument -> words.add(quoteForDisplay(argument)));
    return String.join(" ", words);
  }

  private static String quoteForDisplay(String argument) {
    if (!argument.isEmpty() && argument.chars().allMatch(Command::isPlainCharacter)) {
      return argument;
    }
    return "'" + argument.replace("'", "'\\''") + "'";
  }

  private static boolean isPlainCharacter(int c) {
    return Character.isLetterOrDigit(c) || "-_./=:,@%+".indexOf(c) >= 0;
  }

  @Override
  public String toString() {
    return commandLine();
  }
}
