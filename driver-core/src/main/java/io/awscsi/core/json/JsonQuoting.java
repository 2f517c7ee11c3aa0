package io.awscsi.core.json;

/** A string as a JSON string literal: the one quoting the JSON log lines and the CSI JSON printer share. */
public final class JsonQuoting {

  private JsonQuoting() {}

  /** Appends {@code s} in quotes, with quotes, backslashes and control characters escaped. */
  public static void quote(StringBuilder out, String s) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          // C0 controls must be escaped; DEL, C1 controls, line separators and bidirectional overrides are too,
          // so a decoded-and-printed value cannot drive a terminal or reorder a line any more than a raw one.
          if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == '\u2028' || c == '\u2029'
              || (c >= '\u202a' && c <= '\u202e') || (c >= '\u2066' && c <= '\u2069')) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }
}
