package io.awscsi.diagnose;

import io.awscsi.core.logging.CallLogLine;
import java.util.List;

/**
 * The answer for one volume: the verdict, the stage that is stuck or failed, the component and the exact container
 * that holds the answer, what that component reported, what it means, what to do, the commands that show the full
 * log, what was seen on the way, and the driver's own line for the call.
 *
 * @param subject what was diagnosed, e.g. {@code pvc default/data}
 * @param summary one line: the verdict and its reason
 * @param stage the stage, null when healthy or unknown
 * @param component the component doing the stage ({@code csi-attacher}, {@code node-plugin}, ...), empty if none
 * @param where the exact place, e.g. {@code csi-attacher in kube-system/ebs-csi-controller-5c9f (the Lease holder)}
 * @param error what the component reported (an event, a VolumeAttachment's attachError, a status), empty if nothing
 * @param knownError the id of the known error that explained it, empty if none
 * @param evidence what was seen, one line each
 * @param gaps what could not be read
 * @param also other problems of lower rank, one line each
 * @param driverLog the driver's own line for the call, or why there is none; null when no call is concerned
 */
record Diagnosis(String subject, Verdict verdict, String summary, Knowledge.Stage stage, String component, String where, String error,
                 String knownError, String meaning, String action, List<String> commands, List<String> evidence,
                 List<String> gaps, List<String> also, String volumeHandle, String node, LogQuery logQuery,
                 DriverLog driverLog) {

  /** What a diagnosis can conclude. */
  enum Verdict {
    HEALTHY(0, "healthy"),
    /** Under way and within normal time: not stuck (yet). */
    PROGRESSING(0, "in progress"),
    STUCK(1, "stuck"),
    FAILED(1, "failed"),
    UNKNOWN(2, "could not tell");

    final int exitCode;
    final String words;

    Verdict(int exitCode, String words) {
      this.exitCode = exitCode;
      this.words = words;
    }

    boolean problem() {
      return this == STUCK || this == FAILED;
    }
  }

  /** Where the driver's line for the stage's call is, and which call. */
  record LogQuery(String namespace, String pod, String container, String method, String id, List<String> others) {}

  /**
   * The driver's own line for the call.
   *
   * @param line the newest line of that call about the volume, or null
   * @param note why there is none, or what the line says about the call
   */
  record DriverLog(String namespace, String pod, String container, CallLogLine line, String note) {}

  /**
   * With the driver's own line. A line of the call about the volume proves the driver was called, so a failure first
   * read as the component's own ({@link Knowledge#NO_DRIVER_CALL}, no gRPC status in its message) is the call's after
   * all: the stage's meaning and action then stand.
   */
  Diagnosis withDriverLog(DriverLog log) {
    if (log != null && log.line() != null && Knowledge.NO_DRIVER_CALL.id().equals(knownError) && stage != null) {
      return new Diagnosis(subject, verdict, summary, stage, component, where, error, "", stage.meaning, stage.action,
          commands, evidence, gaps, also, volumeHandle, node, logQuery, log);
    }
    return new Diagnosis(subject, verdict, summary, stage, component, where, error, knownError, meaning, action, commands,
        evidence, gaps, also, volumeHandle, node, logQuery, log);
  }

  static Diagnosis unknown(String subject, String reason) {
    return new Diagnosis(subject, Verdict.UNKNOWN, reason, null, "", "", "", "", "", "", List.of(), List.of(), List.of(),
        List.of(), "", "", null, null);
  }
}
