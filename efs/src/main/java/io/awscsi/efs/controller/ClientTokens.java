package io.awscsi.efs.controller;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * CreateAccessPoint client tokens, as upstream makes them: the volume name (the PV name), or with reuseAccessPoint the
 * SHA-256 of the PVC name so another cluster with the same PVC finds the same access point. EFS allows 64 characters,
 * so a longer volume name is hashed too.
 */
final class ClientTokens {

  static final int MAX_LENGTH = 64;

  private ClientTokens() {}

  static String forVolume(String volumeName) {
    return volumeName.length() <= MAX_LENGTH ? volumeName : sha256Hex(volumeName);
  }

  static String forReusedAccessPoint(String pvcName) {
    return sha256Hex(pvcName);
  }

  static String sha256Hex(String text) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
          .digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every JDK", e);
    }
  }
}
