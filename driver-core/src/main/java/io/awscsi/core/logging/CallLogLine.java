package io.awscsi.core.logging;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one-line log of a CSI call: how {@link CallRecordingInterceptor} writes its message and how a reader
 * ({@code aws-csi-driver diagnose}, through {@link CallLogReader}) reads it back, in one place so the two cannot drift.
 * The message is {@code Method: [volume=ID | name=NAME] [node=ID] duration=Nms outcome=CODE [error="..."]
 * [response={...}]}.
 *
 * @param time when the line was written, as the log line says it ({@code yyyy-MM-ddTHH:mm:ss.SSSZ}), or empty
 * @param method the CSI method, e.g. {@code ControllerPublishVolume}
 * @param volumeId the volume (or, for snapshot calls, the snapshot or source volume) the call was about, or empty
 * @param name the name a create call asked for when it names no volume (CreateVolume's {@code pvc-...}), or empty
 * @param nodeId the node of a publish call, or empty
 * @param durationMs how long the call took
 * @param outcome the gRPC code, {@code OK} when it succeeded
 * @param error the error description the driver answered, or empty
 * @param line the line as it was read (for a person to see), or empty
 */
public record CallLogLine(String time, String method, String volumeId, String name, String nodeId, long durationMs,
                          String outcome, String error, String line) {

  /** The logger the call lines are written to. */
  public static final String LOGGER = "csi.calls";

  private static final Pattern MESSAGE = Pattern.compile("^([A-Z][A-Za-z]+): (?:volume=(\\S+) |name=(\\S+) )?"
      + "(?:node=(\\S+) )?duration=(\\d+)ms outcome=([A-Z_]+)(?: error=\"(.*?)\")?(?: response=\\{.*})?$",
      Pattern.DOTALL);

  public CallLogLine {
    time = nonNull(time);
    volumeId = nonNull(volumeId);
    name = nonNull(name);
    nodeId = nonNull(nodeId);
    error = nonNull(error);
    line = nonNull(line);
  }

  /**
   * The message of a call's line. {@code volumeId} wins over {@code name}; {@code description} and
   * {@code response} are left out when null.
   */
  static String message(String method, String volumeId, String name, String nodeId, long durationMs, String outcome,
      String description, String response) {
    StringBuilder line = new StringBuilder(160).append(method).append(':');
    if (!volumeId.isEmpty()) {
      line.append(" volume=").append(volumeId);
    } else if (!name.isEmpty()) {
      line.append(" name=").append(name);
    }
    if (!nodeId.isEmpty()) {
      line.append(" node=").append(nodeId);
    }
    line.append(" duration=").append(durationMs).append("ms outcome=").append(outcome);
    if (description != null) {
      line.append(" error=\"").append(description).append('"');
    }
    if (response != null) {
      line.append(" response={").append(response).append('}');
    }
    return line.toString();
  }

  /** The call a message describes, when it is a call line's message. */
  public static Optional<CallLogLine> parseMessage(String message, String time, String line) {
    Matcher m = MESSAGE.matcher(message);
    if (!m.matches()) {
      return Optional.empty();
    }
    return Optional.of(new CallLogLine(time, m.group(1), m.group(2), m.group(3), m.group(4),
        Long.parseLong(m.group(5)), m.group(6), m.group(7), line));
  }

  public boolean succeeded() {
    return outcome.equals("OK");
  }

  /** Whether the call was about this id: its volume (or snapshot, or source volume), its name or its node. */
  public boolean concerns(String id) {
    return !id.isEmpty() && (id.equals(volumeId) || id.equals(name) || id.equals(nodeId));
  }

  private static String nonNull(String s) {
    return s == null ? "" : s;
  }
}
