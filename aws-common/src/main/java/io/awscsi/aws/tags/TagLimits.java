package io.awscsi.aws.tags;

import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * EC2's and EFS's limits on resource tags, checked before a call so that a tag the API would refuse is
 * INVALID_ARGUMENT naming the parameter at once, not an API error (or a retried call that runs into the caller's
 * deadline). Upstream's aws-ebs-csi-driver checks the same (pkg/driver/validation.go: 50 tags per resource, keys 1 to
 * 128 characters, values up to 256, no {@code aws:} prefix); control characters are refused too, as they would land
 * in every console and log that shows the tag. Lengths count Unicode characters, as AWS does.
 */
public final class TagLimits {

  /** Tags per resource, the driver's own included. */
  public static final int MAX_TAGS = 50;
  public static final int MAX_KEY_LENGTH = 128;
  public static final int MAX_VALUE_LENGTH = 256;
  static final String AWS_PREFIX = "aws:";

  private TagLimits() {}

  /** Why {@code key} cannot be a tag key, or empty when it can. */
  public static Optional<String> keyProblem(String key) {
    int length = key.codePointCount(0, key.length());
    if (length < 1 || length > MAX_KEY_LENGTH) {
      return Optional.of("tag keys must be 1 to " + MAX_KEY_LENGTH + " characters (a key has " + length + ")");
    }
    if (key.toLowerCase(Locale.ROOT).startsWith(AWS_PREFIX)) {
      return Optional.of("tag keys starting with aws: are reserved by AWS");
    }
    if (hasControl(key)) {
      return Optional.of("tag keys must not contain control characters (a key has one at index "
          + controlIndex(key) + ")");
    }
    return Optional.empty();
  }

  /** Why {@code value} cannot be the value of tag {@code key}, or empty when it can. */
  public static Optional<String> valueProblem(String key, String value) {
    int length = value.codePointCount(0, value.length());
    if (length > MAX_VALUE_LENGTH) {
      return Optional.of("tag values must be at most " + MAX_VALUE_LENGTH + " characters; the value of \""
          + printable(key) + "\" has " + length);
    }
    if (hasControl(value)) {
      return Optional.of("tag values must not contain control characters; the value of \"" + printable(key)
          + "\" has one at index " + controlIndex(value));
    }
    return Optional.empty();
  }

  /** Why these tags cannot all be put on one resource (too many, or the first bad key or value), or empty. */
  public static Optional<String> problem(Map<String, String> tags) {
    if (tags.size() > MAX_TAGS) {
      return Optional.of("a resource can have at most " + MAX_TAGS + " tags, the driver's own included; these "
          + "are " + tags.size());
    }
    for (Map.Entry<String, String> tag : tags.entrySet()) {
      Optional<String> problem = keyProblem(tag.getKey()).or(() -> valueProblem(tag.getKey(), tag.getValue()));
      if (problem.isPresent()) {
        return problem;
      }
    }
    return Optional.empty();
  }

  private static boolean hasControl(String s) {
    return controlIndex(s) >= 0;
  }

  private static int controlIndex(String s) {
    for (int i = 0; i < s.length(); i++) {
      if (Character.isISOControl(s.charAt(i))) {
        return i;
      }
    }
    return -1;
  }

  /** A key as a message may quote it: at most 64 characters, controls replaced. */
  private static String printable(String key) {
    String cut = key.length() > 64 ? key.substring(0, 64) + "..." : key;
    StringBuilder out = new StringBuilder(cut.length());
    cut.chars().forEach(c -> out.append(Character.isISOControl(c) ? '?' : (char) c));
    return out.toString();
  }
}
