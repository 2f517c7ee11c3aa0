package io.awscsi.e2e;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The stages of a Dockerfile and what each one installs, read from the text: no container engine runs on the
 * machines that build this project, so the image's contents are checked by reading how it is built.
 */
record DockerfileStages(List<Stage> stages) {

  private static final Pattern FROM =
      Pattern.compile("(?i)FROM\\s+((?:--\\S+\\s+)*)(\\S+)(?:\\s+AS\\s+(\\S+))?\\s*");
  private static final Pattern PLATFORM_OPTION = Pattern.compile("--platform=(\\S+)");
  private static final Pattern COPY_FROM = Pattern.compile("(?i)COPY\\s+.*--from=(\\S+)\\s+(.+)");
  private static final Pattern COMMAND_SEPARATOR = Pattern.compile("&&|\\|\\||;|\\||\\(|\\)");

  /**
   * One build stage: its name (or its index when unnamed), its base image, the platform its FROM names
   * ({@code --platform=}, e.g. {@code $BUILDPLATFORM}; empty for the target platform, BuildKit's default) and its
   * instructions, one logical line each.
   */
  record Stage(String name, String baseImage, String platform, List<String> instructions) {

    /** Whether the stage runs on the platform being built for (its FROM names no other). */
    boolean onTargetPlatform() {
      return platform.isEmpty() || platform.equals("$TARGETPLATFORM") || platform.equals("${TARGETPLATFORM}");
    }

    /** Whether one of the RUN instructions holds this text (after continued lines are joined). */
    boolean runs(String text) {
      return instructions.stream().anyMatch(i -> keyword(i).equals("RUN") && i.contains(text));
    }

    /** Packages named on an {@code apt-get install} line (options and local .deb files left out). */
    Set<String> aptPackages() {
      Set<String> packages = new LinkedHashSet<>();
      for (String argument : aptInstallArguments()) {
        if (!argument.endsWith(".deb")) {
          packages.add(argument);
        }
      }
      return packages;
    }

    /**
     * Packages installed by this stage: those named on {@code apt-get install} lines and those of the package lists
     * it feeds to {@code xargs apt-get install}, read through {@code repositoryFile} from where COPY took them.
     */
    Set<String> aptPackages(Function<String, String> repositoryFile) {
      Set<String> packages = new LinkedHashSet<>(aptPackages());
      for (String list : aptPackageLists()) {
        for (String line : repositoryFile.apply(list).split("\n")) {
          String name = line.replaceAll("#.*", "").strip();
          if (!name.isEmpty()) {
            packages.add(name);
          }
        }
      }
      return packages;
    }

    /**
     * The repository paths of the package lists this stage installs: a RUN that pipes a file into
     * {@code xargs apt-get install}, where a COPY of this stage (not from another stage) put that file.
     */
    List<String> aptPackageLists() {
      Set<String> lists = new LinkedHashSet<>();
      for (String instruction : instructions) {
        if (!keyword(instruction).equals("RUN")) {
          continue;
        }
        List<List<String>> commands = shellCommands(instruction).stream().map(DockerfileStages::words).toList();
        boolean installsFromInput = commands.stream().anyMatch(w -> w.size() > 2 && w.getFirst().equals("xargs")
            && w.contains("apt-get") && w.indexOf("install") > w.indexOf("apt-get"));
        if (!installsFromInput) {
          continue;
        }
        commands.stream().filter(w -> !w.isEmpty() && Set.of("sed", "cat", "grep").contains(w.getFirst()))
            .flatMap(List::stream).filter(word -> word.startsWith("/"))
            .map(this::copiedFromContext).flatMap(Optional::stream).forEach(lists::add);
      }
      return List.copyOf(lists);
    }

    /** The build-context path a plain COPY of this stage put at {@code destination}. */
    Optional<String> copiedFromContext(String destination) {
      for (String instruction : instructions) {
        List<String> words = words(instruction);
        if (words.size() == 3 && words.getFirst().equalsIgnoreCase("COPY") && words.get(2).equals(destination)) {
          return Optional.of(words.get(1));
        }
      }
      return Optional.empty();
    }

    /** The arguments of every instruction with this keyword, in order (e.g. ENV, LABEL, USER, ENTRYPOINT). */
    List<String> arguments(String keyword) {
      return instructions.stream().filter(i -> keyword(i).equals(keyword.toUpperCase(Locale.ROOT)))
          .map(i -> i.substring(keyword.length()).strip()).toList();
    }

    /** The {@code COPY --from=STAGE SOURCE DESTINATION} instructions: destination -> stage and source. */
    Map<String, List<String>> copiesFromStages() {
      Map<String, List<String>> copies = new LinkedHashMap<>();
      for (String instruction : instructions) {
        Matcher copy = COPY_FROM.matcher(instruction);
        if (copy.matches()) {
          List<String> paths = words(copy.group(2));
          copies.put(paths.getLast(), List.of(copy.group(1), paths.getFirst()));
        }
      }
      return copies;
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
          commands.addAll(shellCommands(instruction));
        }
      }
      return commands;
    }

    private static List<String> shellCommands(String run) {
      List<String> commands = new ArrayList<>();
      String shell = run.substring(3).strip();
      while (shell.startsWith("--")) { // RUN --mount=... options
        int space = shell.indexOf(' ');
        shell = space < 0 ? "" : shell.substring(space + 1).strip();
      }
      for (String command : COMMAND_SEPARATOR.split(shell)) {
        if (!command.isBlank()) {
          commands.add(command.strip());
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
    String platform = null;
    List<String> instructions = null;
    for (String line : logicalLines(text)) {
      Matcher from = FROM.matcher(line);
      if (keyword(line).equals("FROM") && from.matches()) {
        if (instructions != null) {
          stages.add(new Stage(name, base, platform, List.copyOf(instructions)));
        }
        Matcher option = PLATFORM_OPTION.matcher(from.group(1));
        platform = option.find() ? option.group(1) : "";
        base = from.group(2);
        name = from.group(3) != null ? from.group(3) : String.valueOf(stages.size());
        instructions = new ArrayList<>();
      } else if (instructions != null) {
        instructions.add(line);
      }
    }
    if (instructions != null) {
      stages.add(new Stage(name, base, platform, List.copyOf(instructions)));
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

  static String keyword(String instruction) {
    int space = instruction.indexOf(' ');
    return (space < 0 ? instruction : instruction.substring(0, space)).toUpperCase(Locale.ROOT);
  }

  static List<String> words(String command) {
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
