package io.awscsi.ebs.controller;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The part of Go's text/template that upstream tag values may use: {@code {{ .Field }}} actions over the fields the
 * sidecars pass (PVCName, PVCNamespace, PVName; for snapshots VolumeSnapshotName, VolumeSnapshotNamespace,
 * VolumeSnapshotContentName), string and integer literals, pipelines with {@code |} (the piped value is the last
 * argument) and upstream's functions {@code field}, {@code substring}, {@code toUpper}, {@code toLower},
 * {@code contains}, {@code index}, {@code lastIndex}. {@code html}, {@code js}, {@code call} and {@code urlquery} are
 * refused as upstream refuses them. Anything else is an error naming what was not understood.
 */
public final class TagTemplate {

  /** A template that cannot be parsed or evaluated. */
  public static final class TemplateException extends RuntimeException {
    TemplateException(String message) {
      super(message, null, false, false);
    }
  }

  private TagTemplate() {}

  /** Evaluates {@code template} with {@code fields}; a field the caller did not supply is an error, as in Go. */
  public static String evaluate(String template, Map<String, String> fields) {
    StringBuilder out = new StringBuilder();
    int pos = 0;
    while (pos < template.length()) {
      int open = template.indexOf("{{", pos);
      if (open < 0) {
        out.append(template, pos, template.length());
        break;
      }
      int close = template.indexOf("}}", open + 2);
      if (close < 0) {
        throw new TemplateException("unclosed action in \"" + template + "\"");
      }
      String text = template.substring(pos, open);
      String action = template.substring(open + 2, close);
      if (action.startsWith("-")) {
        text = text.stripTrailing();
        action = action.substring(1);
      }
      boolean trimAfter = action.endsWith("-");
      if (trimAfter) {
        action = action.substring(0, action.length() - 1);
      }
      out.append(text).append(render(new Parser(action, fields).pipeline()));
      pos = close + 2;
      if (trimAfter) {
        while (pos < template.length() && Character.isWhitespace(template.charAt(pos))) {
          pos++;
        }
      }
    }
    return out.toString();
  }

  private static String render(Object value) {
    return String.valueOf(value);
  }

  /** A recursive-descent reader of one action's pipeline. */
  private static final class Parser {
    private final String src;
    private final Map<String, String> fields;
    private int at;

    Parser(String src, Map<String, String> fields) {
      this.src = src;
      this.fields = fields;
    }

    Object pipeline() {
      Object value = null;
      boolean first = true;
      while (true) {
        skipSpace();
        if (at >= src.length()) {
          if (first) {
            throw new TemplateException("empty action");
          }
          return value;
        }
        List<Object> words = new ArrayList<>();
        String function = null;
        skipSpace();
        if (at < src.length() && Character.isLetter(src.charAt(at))) {
          function = identifier();
        }
        while (true) {
          skipSpace();
          if (at >= src.length() || src.charAt(at) == '|') {
            break;
          }
          words.add(operand());
        }
        if (!first) {
          if (function == null) {
            throw new TemplateException("a value cannot follow '|'; a function must");
          }
          words.add(value);
        }
        if (function != null) {
          value = call(function, words);
        } else if (words.size() == 1) {
          value = words.getFirst();
        } else {
          throw new TemplateException("can't give arguments to a non-function in \"" + src.trim() + "\"");
        }
        first = false;
        if (at < src.length() && src.charAt(at) == '|') {
          at++;
        } else {
          return value;
        }
      }
    }

    private Object operand() {
      char c = src.charAt(at);
      if (c == '.') {
        at++;
        String name = identifier();
        if (!fields.containsKey(name)) {
          throw new TemplateException("can't evaluate field " + name + "; available: " + fields.keySet());
        }
        return fields.get(name);
      }
      if (c == '"') {
        return quoted();
      }
      if (c == '`') {
        int end = src.indexOf('`', at + 1);
        if (end < 0) {
          throw new TemplateException("unterminated raw string");
        }
        String s = src.substring(at + 1, end);
        at = end + 1;
        return s;
      }
      if (c == '-' || Character.isDigit(c)) {
        int start = at++;
        while (at < src.length() && Character.isDigit(src.charAt(at))) {
          at++;
        }
        try {
          return Integer.parseInt(src.substring(start, at));
        } catch (NumberFormatException e) {
          throw new TemplateException("bad number \"" + src.substring(start, at) + "\"");
        }
      }
      if (Character.isLetter(c)) {
        String word = identifier();
        return switch (word) {
          case "true" -> Boolean.TRUE;
          case "false" -> Boolean.FALSE;
          default -> throw new TemplateException("function " + word + " must come first in a command");
        };
      }
      throw new TemplateException("unexpected '" + c + "' in \"" + src.trim() + "\"");
    }

    private String quoted() {
      StringBuilder s = new StringBuilder();
      at++;
      while (at < src.length() && src.charAt(at) != '"') {
        char c = src.charAt(at++);
        if (c == '\\' && at < src.length()) {
          char e = src.charAt(at++);
          s.append(switch (e) {
            case 'n' -> '\n';
            case 't' -> '\t';
            default -> e;
          });
        } else {
          s.append(c);
        }
      }
      if (at >= src.length()) {
        throw new TemplateException("unterminated string");
      }
      at++;
      return s.toString();
    }

    private String identifier() {
      int start = at;
      while (at < src.length() && (Character.isLetterOrDigit(src.charAt(at)) || src.charAt(at) == '_')) {
        at++;
      }
      if (start == at) {
        throw new TemplateException("expected a name at position " + start + " of \"" + src.trim() + "\"");
      }
      return src.substring(start, at);
    }

    private void skipSpace() {
      while (at < src.length() && Character.isWhitespace(src.charAt(at))) {
        at++;
      }
    }
  }

  private static Object call(String function, List<Object> args) {
    return switch (function) {
      case "toUpper" -> str(function, args, 1, 0).toUpperCase(Locale.ROOT);
      case "toLower" -> str(function, args, 1, 0).toLowerCase(Locale.ROOT);
      case "contains" -> str(function, args, 2, 1).contains(str(function, args, 2, 0));
      case "index" -> str(function, args, 2, 1).indexOf(str(function, args, 2, 0));
      case "lastIndex" -> str(function, args, 2, 1).lastIndexOf(str(function, args, 2, 0));
      case "substring" -> substring(num(function, args, 3, 0), num(function, args, 3, 1), str(function, args, 3, 2));
      case "field" -> field(str(function, args, 3, 0), num(function, args, 3, 1), str(function, args, 3, 2));
      case "html", "js", "call", "urlquery" -> throw new TemplateException("cannot call '" + function + "' function");
      default -> throw new TemplateException("function \"" + function + "\" not defined");
    };
  }

  private static String substring(int start, int end, String s) {
    if (start < 0) {
      if (end > s.length() || end < 0) {
        throw new TemplateException("substring: end " + end + " out of range for \"" + s + "\"");
      }
      return s.substring(0, end);
    }
    if (end < 0 || end > s.length()) {
      if (start > s.length()) {
        throw new TemplateException("substring: start " + start + " out of range for \"" + s + "\"");
      }
      return s.substring(start);
    }
    if (start > end) {
      throw new TemplateException("substring: start " + start + " is after end " + end);
    }
    return s.substring(start, end);
  }

  private static String field(String delimiter, int index, String s) {
    String[] words = s.split(java.util.regex.Pattern.quote(delimiter), -1);
    if (index < 0 || index >= words.length) {
      throw new TemplateException("field: cannot index into split string; index = " + index + ", length = "
          + words.length);
    }
    return words[index];
  }

  private static String str(String function, List<Object> args, int arity, int i) {
    checkArity(function, args, arity);
    if (!(args.get(i) instanceof String s)) {
      throw new TemplateException(function + ": argument " + (i + 1) + " must be a string, got " + args.get(i));
    }
    return s;
  }

  private static int num(String function, List<Object> args, int arity, int i) {
    checkArity(function, args, arity);
    if (!(args.get(i) instanceof Integer n)) {
      throw new TemplateException(function + ": argument " + (i + 1) + " must be an integer, got " + args.get(i));
    }
    return n;
  }

  private static void checkArity(String function, List<Object> args, int arity) {
    if (args.size() != arity) {
      throw new TemplateException("wrong number of args for " + function + ": want " + arity + " got " + args.size());
    }
  }
}
