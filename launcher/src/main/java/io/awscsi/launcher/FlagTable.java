package io.awscsi.launcher;

import io.awscsi.core.json.JsonQuoting;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
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
   * @param help one line, without the default: help renders it from {@code defaultValue}
   * @param group the heading help lists it under ("" for none)
   * @param defaultValue what the command takes when the flag is not given, as it would be written on the command
   *     line; "" for none (the help then says what happens without it). A flag that takes no value defaults to
   *     false.
   */
  public record Flag(String name, String value, String help, String group, String defaultValue) {

    /** A flag whose default is none (or false), or whose command does not read defaults from its table. */
    public Flag(String name, String value, String help, String group) {
      this(name, value, help, group, "");
    }

    static Flag of(String group, String name, String value, String help) {
      return new Flag(name, value, help, group, "");
    }

    /** A flag with a default, which the parser hands out when the flag is not given and help shows. */
    static Flag of(String group, String name, String value, String defaultValue, String help) {
      return new Flag(name, value, help, group, defaultValue);
    }

    /** The help line with the default, as {@code --help} prints it. */
    String helpWithDefault() {
      if (!takesValue() || defaultValue.isEmpty()) {
        return help;
      }
      return help.isEmpty() ? "(default " + defaultValue + ")" : help + " (default " + defaultValue + ")";
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

  /** The default of every flag, by name ("" for none). */
  Map<String, String> defaults() {
    Map<String, String> out = new LinkedHashMap<>();
    flags.forEach(f -> out.put(f.name(), f.defaultValue()));
    return out;
  }

  /**
   * Parses {@code args} against this table; an unknown flag is an error naming it. A flag not given reads as its
   * default in the table.
   */
  public Flags parse(String[] args) {
    return Flags.parse(args, names(), booleans(), defaults());
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
      b.append("    ").append(f.synopsis()).append(" ".repeat(width - f.synopsis().length())).append(f.helpWithDefault())
          .append('\n');
    }
    return b.toString();
  }

  /**
   * The table as JSON, one flag a line, for the chart tests: name, whether it takes a value, what the value looks like,
   * the values it is limited to (if any), its default ("" for none), its group and its help (without the default).
   */
  public String json() {
    return flags.stream().map(f -> "  {\"name\": " + quoted(f.name()) + ", \"takesValue\": " + f.takesValue()
        + ", \"value\": " + quoted(f.value()) + ", \"choices\": ["
        + f.choices().stream().map(FlagTable::quoted).collect(Collectors.joining(", ")) + "], \"default\": "
        + quoted(f.defaultValue()) + ", \"group\": "
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
