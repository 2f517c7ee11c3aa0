package io.awscsi.ebs.controller;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * EC2 ClientTokens for CreateVolume, as upstream: sha256 of the volume name, so a retried CreateVolume returns the
 * same volume. When a creation failed (EC2 then answers IdempotentParameterMismatch, or hands back the failed
 * volume), the name gets a suffix {@code -N} for the next hour so a fresh volume can be made.
 */
final class ClientTokens {

  static final Duration SUFFIX_MEMORY = Duration.ofHours(1);

  private record Suffix(int n, long expiresAt) {}

  private final Map<String, Suffix> suffixes = new ConcurrentHashMap<>();
  private final LongSupplier nanoClock;

  ClientTokens(LongSupplier nanoClock) {
    this.nanoClock = nanoClock;
  }

  String tokenFor(String name) {
    int n = current(name);
    return sha256(n == 0 ? name : name + "-" + n);
  }

  /** Moves the name to its next token after a failed creation. */
  void advance(String name) {
    // Expired suffixes mean token 0 again: drop them, so nothing stays per name beyond the memory.
    suffixes.values().removeIf(this::expired);
    long expiry = nanoClock.getAsLong() + SUFFIX_MEMORY.toNanos();
    suffixes.compute(name, (k, old) -> new Suffix(old == null || expired(old) ? 1 : old.n() + 1, expiry));
  }

  int current(String name) {
    Suffix s = suffixes.get(name);
    if (s == null || expired(s)) {
      return 0;
    }
    return s.n();
  }

  /** Names with a suffix remembered (for tests). */
  int size() {
    return suffixes.size();
  }

  private boolean expired(Suffix s) {
    return s.expiresAt() - nanoClock.getAsLong() <= 0;
  }

  static String sha256(String value) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
    }
  }
}
