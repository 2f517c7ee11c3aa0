package io.awscsi.e2e;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The stages of a Dockerfile and what each one installs, read from the text: no container engine runs on the
 * machines that build this project, so the image's contents are checked by reading how it is built.
 */
record DockerfileStages(List<Stage> stages) {

  private static final Pattern FROM = Pattern.compile("(?i)FROM\\s+(?:--\\S+\\s+)*(\\S+)(?:\\s+AS\\s+(\\S+))?\\s*");
  private static final Pattern COPY_FROM = Pattern.compile("(?i)COPY\\s+.*--from=(\\S+)\\s+(.+)");
  private static final Pattern COMMAND_SEPARATOR = Pattern.compile("&&|\\|\\||;|\\||\\(|\\)");

  /** One build stage: its name (or its index when unnamed) and its instructions, one logical line each. */
  record Stage(String name, String baseImage, List<String> instructions) {

    /** Packages installed by {@code apt-get install} (options and local .deb files left out). */
    Set<String> aptPackages() {
      Set<String> packages = new LinkedHashSet<>();
      for (String argument : aptInstallArguments()) {
        if (!argument.endsWith(".deb")) {
          packages.add(argument);
        }
      }
      return packages;
    }

    /** Local .deb files installed by {@code apt-get install} or {@code dpkg -i}. */
    Set<String> installedDebFiles() {
      Set<String> debs = new LinkedHashSet<>();
      for (String argument : aptInstallArguments()) {
        if (argument.endsWith(".deb")) {
          debs.add(argument);
        }
      }
      for (String command : commands()) {
        List<String> words = words(command);
        if (!words.isEmpty() && words.getFirst().equals("dpkg")) {
          words.stream().filter(word -> word.endsWith(".deb")).forEach(debs::add);
        }
      }
      return debs;
    }

    /** The stage a file was copied from, when a {@code COPY --from=} instruction names it as its destination. */
    Optional<String> stageThatProvided(String destination) {
      for (String instruction : instructions) {
        Matcher copy = COPY_FROM.matcher(instruction);
        if (copy.matches() && words(copy.group(2)).getLast().equals(destination)) {
          return Optional.of(copy.group(1));
        }
      }
      return Optional.empty();
    }

    /** Whether one of the shell commands this stage runs starts with the given words. */
    boolean runsCommand(String... prefix) {
      List<String> wanted = List.of(prefix);
      return commands().stream()
          .map(DockerfileStages::words)
          .anyMatch(words -> words.size() >= wanted.size() && words.subList(0, wanted.size()).equals(wanted));
    }

    private List<String> aptInstallArguments() {
      List<String> arguments = new ArrayList<>();
      for (String command : commands()) {
        List<String> words = words(command);
        if (words.size() < 2 || !words.getFirst().equals("apt-get")) {
          continue;
        }
        int install = words.indexOf("install");
        if (install < 0) {
          continue;
        }
        words.subList(install + 1, words.size()).stream().filter(word -> !word.startsWith("-")).forEach(arguments::add);
      }
      return arguments;
    }

    /** The shell commands of the RUN instructions, split at {@code &&}, {@code ;}, pipes and subshells. */
    private List<String> commands() {
      List<String> commands = new ArrayList<>();
      for (String instruction : instructions) {
        if (keyword(instruction).equals("RUN")) {
          String shell = instruction.substring(3).strip();
          while (shell.startsWith("--")) { // RUN --mount=... options
            int space = shell.indexOf(' ');
            shell = space < 0 ? "" : shell.substring(space + 1).strip();
          }
          for (String command : COMMAND_SEPARATOR.split(shell)) {
            if (!command.isBlank()) {
              commands.add(command.strip());
            }
          }
        }
      }
      return commands;
    }
  }

  /** Parses Dockerfile text: joins continued lines, drops comments, splits at each FROM. */
  static DockerfileStages parse(String text) {
    List<Stage> stages = new ArrayList<>();
    String name = null;
    String base = null;
    List<String> instructions = null;
    for (String line : logicalLines(text)) {
      Matcher from = FROM.matcher(line);
      if (keyword(line).equals("FROM") && from.matches()) {
        if (instructions != null) {
          stages.add(new Stage(name, base, List.copyOf(instructions)));
        }
        base = from.group(1);
        name = from.group(2) != null ? from.group(2) : String.valueOf(stages.size());
        instructions = new ArrayList<>();
      } else if (instructions != null) {
        instructions.add(line);
      }
    }
    if (instructions != null) {
      stages.add(new Stage(name, base, List.copyOf(instructions)));
    }
    return new DockerfileStages(List.copyOf(stages));
  }

  /** The stage the image is made of: the last one. */
  Stage runtime() {
    if (stages.isEmpty()) {
      throw new IllegalStateException("the Dockerfile has no FROM instruction");
    }
    return stages.getLast();
  }

  Optional<Stage> stage(String name) {
    return stages.stream().filter(stage -> stage.name().equals(name)).findFirst();
  }

  private static List<String> logicalLines(String text) {
    List<String> lines = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    for (String raw : text.split("\n", -1)) {
      String line = raw.strip();
      if (line.startsWith("#")) {
        continue; // comments, also between continued lines, as Docker reads them
      }
      if (line.endsWith("\\")) {
        current.append(line, 0, line.length() - 1).append(' ');
        continue;
      }
      current.append(line);
      if (!current.isEmpty() && !current.toString().isBlank()) {
        lines.add(current.toString().strip());
      }
      current.setLength(0);
    }
    if (!current.toString().isBlank()) {
      lines.add(current.toString().strip());
    }
    return lines;
  }

  private static String keyword(String instruction) {
    int space = instruction.indexOf(' ');
    return (space < 0 ? instruction : instruction.substring(0, space)).toUpperCase(Locale.ROOT);
  }

  private static List<String> words(String command) {
    List<String> words = new ArrayList<>();
    for (String word : command.strip().split("\\s+")) {
      String unquoted = word.replaceAll("^[\"']|[\"']$", "");
      if (!unquoted.isEmpty()) {
        words.add(unquoted);
      }
    }
    return words;
  }
}
