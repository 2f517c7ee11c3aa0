package io.awscsi.ebs.controller;

import io.awscsi.core.errors.DriverException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * Paging tokens of ListVolumes and ListSnapshots: EC2's own next token plus how many entries of that EC2 page were
 * already returned (CSI's max_entries may be smaller than EC2's smallest page). A token this driver did not issue is
 * ABORTED, as the spec asks.
 */
final class ListTokens {

  private static final String PREFIX = "ebs1|";

  /** A position: EC2's token of the page (empty for the first) and the entries of it already returned. */
  record Position(String ec2Token, int skip) {
    static final Position START = new Position("", 0);
  }

  private ListTokens() {}

  static String encode(Position p) {
    return Base64.getUrlEncoder().withoutPadding().encodeToString((PREFIX + p.skip() + "|" + p.ec2Token())
        .getBytes(StandardCharsets.UTF_8));
  }

  static Position decode(String token) {
    if (token == null || token.isEmpty()) {
      return Position.START;
    }
    try {
      String text = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
      if (!text.startsWith(PREFIX)) {
        throw invalid(token);
      }
      String rest = text.substring(PREFIX.length());
      int bar = rest.indexOf('|');
      int skip = Integer.parseInt(rest.substring(0, bar));
      if (skip < 0) {
        throw invalid(token);
      }
      return new Position(rest.substring(bar + 1), skip);
    } catch (IllegalArgumentException | StringIndexOutOfBoundsException e) {
      throw invalid(token);
    }
  }

  static DriverException invalid(String token) {
    return DriverException.aborted("starting_token \"" + token + "\" was not issued by this driver or has expired; "
        + "list again from the beginning");
  }

  /** EC2's page size for a CSI max_entries (0 = no limit): within EC2's bounds for the action. */
  static int ec2PageSize(int maxEntries, int ec2Min, int ec2Max) {
    return maxEntries <= 0 ? ec2Max : Math.clamp(maxEntries, ec2Min, ec2Max);
  }
}
