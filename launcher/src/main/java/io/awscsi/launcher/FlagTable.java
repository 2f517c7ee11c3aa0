package io.awscsi.launcher;

import io.awscsi.core.json.JsonQuoting;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The flags of one command, in one table: the parser accepts exactly these ({@link #parse}), {@code --help} prints
 * exactly these ({@link #help}) and the chart tests read exactly these ({@link #json}, committed as
 * {@code docs/plugin-flags.json} for the driver's own command), so none of them can disagree.
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

    /** The values a flag like {@code --mode controller|node|all} takes; empty when any value goes. */
    List<String> choices() {
      return CHOICES.matcher(value).matches() ? List.of(value.split("\\|")) : List.of();
    }
  }

  private static final Pattern CHOICES = Pattern.compile("[a-z0-9-]+(\\|[a-z0-9-]+)+");

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

  /**
   * The table as JSON, one flag a line, for the chart tests: name, whether it takes a value, what the value looks like,
   * the values it is limited to (if any), its group and its help.
   */
  public String json() {
    return flags.stream().map(f -> "  {\"name\": " + quoted(f.name()) + ", \"takesValue\": " + f.takesValue()
        + ", \"value\": " + quoted(f.value()) + ", \"choices\": ["
        + f.choices().stream().map(FlagTable::quoted).collect(Collectors.joining(", ")) + "], \"group\": "
        + quoted(f.group()) + ", \"help\": " + quoted(f.help()) + "}")
        .collect(Collectors.joining(",\n", "{\"command\": " + quoted(command) + ", \"flags\": [\n", "\n]}\n"));
  }

  private static String quoted(String s) {
    StringBuilder b = new StringBuilder();
    JsonQuoting.quote(b, s);
    return b.toString();
  }

  /** The one-line synopsis of the command, every flag in brackets. */
  public String synopsis() {
    return command + flags.stream().map(f -> " [" + f.synopsis() + "]").collect(Collectors.joining());
  }
}
