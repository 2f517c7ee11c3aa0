package io.awscsi.core.logging;

import csi.v1.ControllerExpandVolumeRequest;
import csi.v1.ControllerModifyVolumeRequest;
import csi.v1.ControllerPublishVolumeRequest;
import csi.v1.ControllerUnpublishVolumeRequest;
import csi.v1.CreateSnapshotRequest;
import csi.v1.CreateVolumeRequest;
import csi.v1.DeleteSnapshotRequest;
import csi.v1.DeleteVolumeRequest;
import csi.v1.ListSnapshotsRequest;
import csi.v1.NodeExpandVolumeRequest;
import csi.v1.NodePublishVolumeRequest;
import csi.v1.NodeStageVolumeRequest;
import csi.v1.ValidateVolumeCapabilitiesRequest;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * The values of the CSI {@code secrets} maps the driver has been sent, so that none of them reaches a log line or a
 * gRPC answer by any path: the driver's own messages name a secret's key only, but a value can still come back inside
 * text the driver does not write itself (an STS AssumeRole error quotes the role ARN it was given, an SDK exception
 * echoes a request). The log backend and {@code GrpcErrors} pass all text through {@link #redact}, on whatever thread
 * it is written, so a secret is masked even in a line written by a retry thread after the call returned.
 *
 * <p>Values shorter than {@value #MIN_LENGTH} characters are not searched for: masking {@code true} or {@code 1}
 * everywhere would garble every line and hide nothing. The set is bounded ({@value #CAPACITY} values, the oldest
 * forgotten first), as a controller serves many StorageClasses but few distinct secrets.
 */
public final class SecretValues {

  /** What replaces a secret value (the same mask the debug log's request bodies use). */
  public static final String MASK = RequestRedactor.MASK;
  static final int MIN_LENGTH = 6;
  static final int CAPACITY = 256;

  /** Longest first, so a value that contains another is masked whole. Replaced, never mutated. */
  private static volatile List<String> values = List.of();
  /** The same values, newest first: what is kept when the set is full. Guarded by the class. */
  private static List<String> newestFirst = new ArrayList<>();

  private SecretValues() {}

  /** Remembers the secret values a CSI request carries (no-op for requests without a secrets map). */
  public static void rememberFrom(Object request) {
    Map<String, String> secrets = switch (request) {
      case CreateVolumeRequest r -> r.getSecretsMap();
      case DeleteVolumeRequest r -> r.getSecretsMap();
      case ControllerPublishVolumeRequest r -> r.getSecretsMap();
      case ControllerUnpublishVolumeRequest r -> r.getSecretsMap();
      case ValidateVolumeCapabilitiesRequest r -> r.getSecretsMap();
      case ControllerExpandVolumeRequest r -> r.getSecretsMap();
      case ControllerModifyVolumeRequest r -> r.getSecretsMap();
      case CreateSnapshotRequest r -> r.getSecretsMap();
      case DeleteSnapshotRequest r -> r.getSecretsMap();
      case ListSnapshotsRequest r -> r.getSecretsMap();
      case NodeStageVolumeRequest r -> r.getSecretsMap();
      case NodePublishVolumeRequest r -> r.getSecretsMap();
      case NodeExpandVolumeRequest r -> r.getSecretsMap();
      case null, default -> Map.of();
    };
    if (!secrets.isEmpty()) {
      remember(secrets.values());
    }
  }

  /** Remembers these values (and their stripped forms, as parsers strip them) as secret. */
  public static void remember(Collection<String> secretValues) {
    List<String> fresh = new ArrayList<>();
    List<String> known = values;
    for (String v : secretValues) {
      for (String form : v == null ? List.<String>of() : List.of(v, v.strip())) {
        if (form.length() >= MIN_LENGTH && !known.contains(form) && !fresh.contains(form)) {
          fresh.add(form);
        }
      }
    }
    if (fresh.isEmpty()) {
      return;
    }
    synchronized (SecretValues.class) {
      newestFirst.removeAll(fresh);
      List<String> next = new ArrayList<>(fresh);
      next.addAll(newestFirst);
      newestFirst = new ArrayList<>(next.subList(0, Math.min(next.size(), CAPACITY)));
      List<String> ordered = new ArrayList<>(newestFirst);
      ordered.sort(Comparator.comparingInt(String::length).reversed());
      values = List.copyOf(ordered);
    }
  }

  /** {@code text} with every remembered secret value replaced by {@value #MASK}; null stays null. */
  public static String redact(String text) {
    if (text == null || text.length() < MIN_LENGTH) {
      return text;
    }
    String out = text;
    for (String secret : values) {
      if (out.contains(secret)) {
        out = out.replace(secret, MASK);
      }
    }
    return out;
  }
}
