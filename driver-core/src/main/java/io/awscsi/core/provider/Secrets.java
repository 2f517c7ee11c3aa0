package io.awscsi.core.provider;

import java.util.Map;
import java.util.TreeMap;

/** Renders a secrets map for logs and messages: keys stay (they help diagnosis), values never appear. */
public final class Secrets {

  private Secrets() {}

  public static String mask(Map<String, String> secrets) {
    Map<String, String> masked = new TreeMap<>();
    secrets.keySet().forEach(k -> masked.put(k, "***"));
    return masked.toString();
  }
}
