package io.awscsi.diagnose;

import io.awscsi.core.logging.CallLogLine;
import io.awscsi.core.logging.CallLogReader;
import io.awscsi.diagnose.Diagnosis.DriverLog;
import io.awscsi.diagnose.Diagnosis.LogQuery;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the driver's own line for a diagnosed call from the right container through the API (pods/log): the plugin
 * container of the Lease holder (then the other controller replicas, as the Lease may have moved), or of the node
 * plugin on the node; only the last {@code since} of it, at most {@link #MAX_LINES} lines.
 */
final class DriverLogs {

  /** A bound on what one container's log may cost this short-lived process. */
  static final int MAX_LINES = 50_000;

  private final KubernetesClient client;
  private final Duration since;

  DriverLogs(KubernetesClient client, Duration since) {
    this.client = client;
    this.since = since;
  }

  /** The newest line of the call about the volume, or why there is none; null when no call is concerned. */
  DriverLog find(LogQuery q) {
    if (q == null) {
      return null;
    }
    List<String> pods = new ArrayList<>();
    if (!q.pod().isEmpty()) {
      pods.add(q.namespace() + "/" + q.pod());
    }
    pods.addAll(q.others());
    if (pods.isEmpty()) {
      return new DriverLog("", "", q.container(), null, "no pod of the driver to read " + q.method() + " lines from"
          + " (the driver may run outside Kubernetes, or not at all)");
    }
    List<String> notes = new ArrayList<>();
    for (String ref : pods) {
      String ns = ref.substring(0, ref.indexOf('/'));
      String pod = ref.substring(ref.indexOf('/') + 1);
      String log;
      try {
        log = client.raw(path(ns, pod, q.container()));
      } catch (KubernetesClientException e) {
        notes.add("cannot read the log of " + ref + " (container " + q.container() + "): "
            + ClusterReader.reason(e));
        continue;
      }
      List<CallLogLine> calls = CallLogReader.read(log == null ? "" : log).stream()
          .filter(c -> c.method().equals(q.method()) && c.concerns(q.id())).toList();
      if (calls.isEmpty()) {
        notes.add("no " + q.method() + " line about " + q.id() + " in the last " + Durations.words(since) + " of "
            + ref + " (container " + q.container() + ")");
        continue;
      }
      CallLogLine last = calls.getLast();
      long failures = calls.stream().filter(c -> !c.succeeded()).count();
      String note = calls.size() + " " + q.method() + " call(s) about " + q.id() + " in the last "
          + Durations.words(since) + ", " + failures + " failed; " + (last.succeeded() ? "the last succeeded"
              : "the last failed with " + last.outcome());
      return new DriverLog(ns, pod, q.container(), last, note);
    }
    return new DriverLog(q.namespace(), q.pod(), q.container(), null, String.join("; ", notes));
  }

  /**
   * The pods/log request. Read as a plain GET rather than through fabric8's log DSL, which first waits (with a
   * watch) for the pod to be ready: a crash-looping plugin's log is what is wanted most.
   */
  String path(String namespace, String pod, String container) {
    return "/api/v1/namespaces/" + namespace + "/pods/" + pod + "/log?container="
        + URLEncoder.encode(container, StandardCharsets.UTF_8) + "&sinceSeconds=" + since.toSeconds() + "&tailLines="
        + MAX_LINES;
  }
}
