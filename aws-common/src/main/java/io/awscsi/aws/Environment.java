package io.awscsi.aws;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Environment variables as a value. Code that reads a setting from the environment takes one of these, so tests hand
 * it a map; {@link #system()} is the only place in aws-common that reads the real process environment.
 */
public record Environment(Map<String, String> variables) {

  public Environment {
    variables = Map.copyOf(variables);
  }

  /** The environment of this process. */
  public static Environment system() {
    return new Environment(System.getenv());
  }

  public static Environment of(Map<String, String> variables) {
    return new Environment(variables);
  }

  public static Environment empty() {
    return new Environment(Map.of());
  }

  /** The trimmed value, empty when the variable is unset or blank (an empty variable means "not set" to the SDK). */
  public Optional<String> get(String name) {
    String value = variables.get(name);
    if (value == null || value.isBlank()) {
      return Optional.empty();
    }
    return Optional.of(value.trim());
  }

  public boolean isSet(String name) {
    return get(name).isPresent();
  }

  /** Whether the variable is {@code true} (any case), the way the AWS SDKs read boolean settings. */
  public boolean isTrue(String name) {
    return get(name).map("true"::equalsIgnoreCase).orElse(false);
  }

  /** A copy with one variable set (or replaced). */
  public Environment with(String name, String value) {
    Map<String, String> copy = new HashMap<>(variables);
    copy.put(name, value);
    return new Environment(copy);
  }
}
