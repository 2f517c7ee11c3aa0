package io.awscsi.launcher;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The flags of one command, in one table: the parser accepts exactly these ({@link #parse}) and {@code --help} prints
 * exactly these ({@link #help}), so the two cannot disagree.
 *
 * @param command how the command is invoked, e.g. {@code aws-csi-driver local}
 * @param flags every flag, in the order help lists them
 */
public record FlagTable(String command, List<Flag> flags) {

  /**
   * One flag.
   *
   * @param name without the leading dashes
   * @param value what the value looks like ({@code DIR}, {@code ebs|efs}); "" for a flag that takes none
   * @param help one line; says the default where there is one
   * @param group the heading help lists it under ("" for none)
   */
  public record Flag(String name, String value, String help, String group) {

    static Flag of(String group, String name, String value, String help) {
      return new Flag(name, value, help, group);
    }

    boolean takesValue() {
      return !value.isEmpty();
    }

    String synopsis() {
      return "--" + name + (takesValue() ? " " + value : "");
    }
  }

  public FlagTable {
    flags = List.copyOf(flags);
  }

  Set<String> names() {
    return flags.stream().map(Flag::name).collect(Collectors.toCollection(LinkedHashSet::new));
  }

  Set<String> booleans() {
    return flags.stream().filter(f -> !f.takesValue()).map(Flag::name)
        .collect(Collectors.toCollection(LinkedHashSet::new));
  }

  /** Parses {@code args} against this table; an unknown flag is an error naming it. */
  public Flags parse(String[] args) {
    return Flags.parse(args, names(), booleans());
  }

  /** The flags as help lists them, under their group headings. */
  public String help() {
    StringBuilder b = new StringBuilder();
    int width = flags.stream().mapToInt(f -> f.synopsis().length()).max().orElse(0) + 2;
    String group = null;
    for (Flag f : flags) {
      if (!f.group().equals(group)) {
        group = f.group();
        if (!group.isEmpty()) {
          b.append("  ").append(group).append(":\n");
        }
      }
      b.append("    ").append(f.synopsis()).append(" ".repeat(width - f.synopsis().length())).append(f.help())
          .append('\n');
    }
    return b.toString();
  }

  /** The one-line synopsis of the command, every flag in brackets. */
  public String synopsis() {
    return command + flags.stream().map(f -> " [" + f.synopsis() + "]").collect(Collectors.joining());
  }
}
