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
          // C0 controls must be escaped; the other unsafe characters are too, so that the line itself can be shown.
          if (isUnsafe(c)) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }

  /**
   * {@code s} quoted as {@link #quote} does, cut to its first {@code max} characters with the length said after it:
   * for a caller's value in a log line or an answer, where a value of megabytes would make a line of megabytes.
   */
  public static String quoted(String s, int max) {
    StringBuilder out = new StringBuilder();
    boolean cut = s.length() > max;
    quote(out, cut ? s.substring(0, max) : s);
    return cut ? out.append("... (").append(s.length()).append(" characters)").toString() : out.toString();
  }

  /**
   * Whether {@code c} must never be written raw to a log or a terminal: C0 and C1 controls and DEL (line breaks,
   * terminal escape sequences), the Unicode line and paragraph separators, and the bidirectional overrides and
   * isolates that make a line read differently from what it holds.
   */
  public static boolean isUnsafe(char c) {
    return c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == '\u2028' || c == '\u2029'
        || (c >= '\u202a' && c <= '\u202e') || (c >= '\u2066' && c <= '\u2069');
  }
}
