package io.awscsi.efs.efsutils;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * One operator override of efs-utils' configuration, {@code section:key=value}, as upstream's
 * {@code --efs-utils-conf-overrides} takes them (comma-separated). An override replaces a key the written file has,
 * set or commented out, in that section; a section or key the file lacks is refused, so a misspelt override fails the
 * start instead of being ignored.
 */
public record ConfOverride(String section, String key, String value) {

  /**
   * Keys that choose where the TLS connection goes and how its certificate is checked: an override must not redirect
   * or weaken it (the same keys upstream refuses, compared case-insensitively because efs-utils lower-cases keys).
   */
  static final Set<String> DENIED_KEYS = Set.of("dns_name_suffix", "dns_name_format", "stunnel_cafile",
      "stunnel_check_cert_hostname", "stunnel_check_cert_validity");

  public ConfOverride {
    Objects.requireNonNull(section, "section");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
  }

  /**
   * Parses {@code section:key=value[,section:key=value...]}; blank gives none.
   *
   * @param flag the flag's name, for the messages
   * @throws IllegalArgumentException naming the flag and the entry that is malformed or denied
   */
  public static List<ConfOverride> parse(String flag, String raw) {
    List<ConfOverride> overrides = new ArrayList<>();
    if (raw == null || raw.isBlank()) {
      return overrides;
    }
    for (String entry : raw.split(",")) {
      String e = entry.strip();
      if (e.isEmpty()) {
        continue;
      }
      int colon = e.indexOf(':');
      int equals = colon < 0 ? -1 : e.indexOf('=', colon);
      if (colon <= 0 || equals < 0 || e.substring(colon + 1, equals).isBlank()) {
        throw new IllegalArgumentException("--" + flag + " entry \"" + e + "\" must look like section:key=value");
      }
      ConfOverride override = new ConfOverride(e.substring(0, colon).strip(), e.substring(colon + 1, equals).strip(),
          e.substring(equals + 1).strip());
      if (DENIED_KEYS.contains(override.key().toLowerCase(Locale.ROOT))) {
        throw new IllegalArgumentException("--" + flag + " cannot set " + override.key() + ": it controls where the "
            + "TLS connection goes or how its certificate is checked");
      }
      overrides.add(override);
    }
    return overrides;
  }

  /**
   * The configuration text with the overrides applied in order: the first line of the section whose key (set or
   * after a {@code #}) is this key becomes {@code key = value}.
   *
   * @throws IllegalArgumentException when the section or the key is not in the text
   */
  static String apply(String text, List<ConfOverride> overrides) {
    List<String> lines = new ArrayList<>(text.lines().toList());
    for (ConfOverride o : overrides) {
      int section = lines.indexOf("[" + o.section() + "]");
      if (section < 0) {
        throw new IllegalArgumentException("efs-utils configuration override " + o + ": there is no section ["
            + o.section() + "]");
      }
      boolean replaced = false;
      for (int i = section + 1; i < lines.size() && !lines.get(i).startsWith("["); i++) {
        String line = lines.get(i).strip();
        String setting = line.startsWith("#") ? line.substring(1).strip() : line;
        int equals = setting.indexOf('=');
        if (equals > 0 && setting.substring(0, equals).strip().equals(o.key())) {
          lines.set(i, o.key() + " = " + o.value());
          replaced = true;
          break;
        }
      }
      if (!replaced) {
        throw new IllegalArgumentException("efs-utils configuration override " + o + ": section [" + o.section()
            + "] has no key " + o.key());
      }
    }
    return String.join("\n", lines) + "\n";
  }

  @Override
  public String toString() {
    return section + ":" + key + "=" + value;
  }
}
