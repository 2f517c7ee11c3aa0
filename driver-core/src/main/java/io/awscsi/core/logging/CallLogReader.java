package io.awscsi.core.logging;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.awscsi.core.logging.backend.LogLineFormat;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the call lines ({@link CallLogLine}) out of a driver container's log as {@link LogLineFormat} writes it, text
 * or ECS JSON, mixed or not; every other line (other loggers, stack traces) is passed over. A text message written
 * over several lines (by a driver from before messages were escaped) is joined back. Used by {@code diagnose}, never by the
 * serving driver.
 */
public final class CallLogReader {

  private static final ObjectMapper JSON = new ObjectMapper();
  /** {@code LogLineFormat.TEXT}: time, level padded to five, the logger's simple name, " - ", the message. */
  private static final Pattern TEXT = Pattern.compile("^(\\d{4}-\\d\\d-\\d\\dT[0-9:.]+Z) +[A-Z]+ +"
      + Pattern.quote(LogLineFormat.simpleName(CallLogLine.LOGGER)) + " - (.*)$");
  private static final Pattern ANY_TEXT_LINE = Pattern.compile("^\\d{4}-\\d\\d-\\d\\dT[0-9:.]+Z ");
  /** How many lines a text message may run over before the reader gives up on joining it. */
  private static final int MAX_CONTINUATION = 40;

  private CallLogReader() {}

  /** The call lines of {@code log}, oldest first. */
  public static List<CallLogLine> read(String log) {
    String[] lines = log.split("\r?\n", -1);
    List<CallLogLine> calls = new ArrayList<>();
    for (int i = 0; i < lines.length; i++) {
      String line = lines[i];
      if (line.startsWith("{")) {
        json(line).ifPresent(calls::add);
        continue;
      }
      Matcher m = TEXT.matcher(line);
      if (!m.matches()) {
        continue;
      }
      String time = m.group(1);
      // The text format writes line breaks and tabs as \n, \r, \t (a message is one line); read them back as the
      // JSON reader does. Other escapes stay visible: what diagnose prints must not drive a terminal.
      String message = unescapeLineBreaks(m.group(2));
      Optional<CallLogLine> call = CallLogLine.parseMessage(message, time, line);
      // An error message with line breaks: join the lines that follow until the message is whole.
      int j = i;
      StringBuilder joined = new StringBuilder(message);
      StringBuilder whole = new StringBuilder(line);
      while (call.isEmpty() && j + 1 < lines.length && j - i < MAX_CONTINUATION
          && !ANY_TEXT_LINE.matcher(lines[j + 1]).find() && !lines[j + 1].startsWith("{")) {
        j++;
        joined.append('\n').append(lines[j]);
        whole.append('\n').append(lines[j]);
        call = CallLogLine.parseMessage(joined.toString(), time, whole.toString());
      }
      if (call.isPresent()) {
        calls.add(call.get());
        i = j;
      }
    }
    return calls;
  }

  static String unescapeLineBreaks(String message) {
    if (message.indexOf('\\') < 0) {
      return message;
    }
    StringBuilder out = new StringBuilder(message.length());
    for (int i = 0; i < message.length(); i++) {
      char c = message.charAt(i);
      char next = i + 1 < message.length() ? message.charAt(i + 1) : 0;
      if (c == '\\' && (next == 'n' || next == 'r' || next == 't')) {
        out.append(next == 'n' ? '\n' : next == 'r' ? '\r' : '\t');
        i++;
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }

  private static Optional<CallLogLine> json(String line) {
    JsonNode node;
    try {
      node = JSON.readTree(line);
    } catch (java.io.IOException e) {
      return Optional.empty();
    }
    if (node == null || !CallLogLine.LOGGER.equals(node.path("log.logger").asText())) {
      return Optional.empty();
    }
    return CallLogLine.parseMessage(node.path("message").asText(), node.path("@timestamp").asText(), line);
  }
}
