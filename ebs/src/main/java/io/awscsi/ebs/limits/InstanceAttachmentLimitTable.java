package io.awscsi.ebs.limits;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * EBS attachment limits per EC2 instance type, from the compact table {@code instance-attachment-limits.txt} next to
 * this class (its header names the source of the numbers and the line forms). Lookups never fail: an unknown type
 * gets the Nitro default, 27 shared, as upstream does.
 */
public final class InstanceAttachmentLimitTable {

  private static final String RESOURCE = "instance-attachment-limits.txt";
  private static final Pattern SIZE_MULTIPLE = Pattern.compile("(\\d+)xlarge");
  private static final Pattern METAL_MULTIPLE = Pattern.compile("metal-(\\d+)xl");
  private static final Set<String> SMALL_SIZES = Set.of("nano", "micro", "small", "medium", "large", "xlarge");

  private static final InstanceAttachmentLimitTable DEFAULT = load();

  private final Map<String, AttachmentLimit> explicit;
  private final Set<String> ladderFamilies;
  private final Set<String> xenFamilies;

  private InstanceAttachmentLimitTable(
      Map<String, AttachmentLimit> explicit, Set<String> ladderFamilies, Set<String> xenFamilies) {
    this.explicit = Map.copyOf(explicit);
    this.ladderFamilies = Set.copyOf(ladderFamilies);
    this.xenFamilies = Set.copyOf(xenFamilies);
  }

  /** The table shipped with the driver. */
  public static InstanceAttachmentLimitTable standard() {
    return DEFAULT;
  }

  /** The limit of {@code instanceType} (e.g. {@code m7i.16xlarge}); the Nitro default for a type not listed. */
  public AttachmentLimit limitOf(String instanceType) {
    String type = instanceType.trim().toLowerCase(Locale.ROOT);
    AttachmentLimit listed = explicit.get(type);
    if (listed != null) {
      return listed;
    }
    int dot = type.indexOf('.');
    if (dot > 0) {
      String family = type.substring(0, dot);
      String size = type.substring(dot + 1);
      if (xenFamilies.contains(family) && !size.startsWith("metal")) {
        return AttachmentLimit.XEN;
      }
      if (ladderFamilies.contains(family)) {
        Integer limit = ladder(size);
        if (limit != null) {
          return AttachmentLimit.dedicated(limit);
        }
      }
    }
    return AttachmentLimit.NITRO_DEFAULT;
  }

  /**
   * The dedicated limit of the 7th/8th generation families by size: it grows with the instance's share of the host.
   * Null for a size name the ladder does not know.
   */
  static Integer ladder(String size) {
    if (SMALL_SIZES.contains(size)) {
      return 32;
    }
    Matcher metal = METAL_MULTIPLE.matcher(size);
    if (metal.matches()) {
      return Integer.parseInt(metal.group(1)) <= 24 ? 39 : 79;
    }
    Matcher multiple = SIZE_MULTIPLE.matcher(size);
    if (!multiple.matches()) {
      return null;
    }
    int n = Integer.parseInt(multiple.group(1));
    if (n <= 12) {
      return 32;
    } else if (n <= 18) {
      return 48;
    } else if (n <= 24) {
      return 64;
    } else if (n <= 32) {
      return 88;
    }
    return 128;
  }

  /** Parses the table text (see the resource's header). */
  static InstanceAttachmentLimitTable parse(List<String> lines) {
    Map<String, AttachmentLimit> explicit = new HashMap<>();
    Set<String> ladder = new HashSet<>();
    Set<String> xen = new HashSet<>();
    int lineNumber = 0;
    for (String raw : lines) {
      lineNumber++;
      String line = raw.strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      String[] fields = line.split("\\s+");
      if (fields.length < 2) {
        throw malformed(lineNumber, raw, "expected a kind and families");
      }
      List<String> families = List.of(fields[1].split(","));
      switch (fields[0]) {
        case "xen" -> requireNoSizes(fields, lineNumber, raw, () -> xen.addAll(families));
        case "ladder" -> requireNoSizes(fields, lineNumber, raw, () -> ladder.addAll(families));
        case "shared", "dedicated" -> {
          if (fields.length < 3) {
            throw malformed(lineNumber, raw, "expected <sizes>=<limit>");
          }
          boolean shared = fields[0].equals("shared");
          for (int i = 2; i < fields.length; i++) {
            String[] sizesAndLimit = fields[i].split("=");
            if (sizesAndLimit.length != 2) {
              throw malformed(lineNumber, raw, "expected <sizes>=<limit>, got " + fields[i]);
            }
            AttachmentLimit limit = new AttachmentLimit(parseLimit(sizesAndLimit[1], lineNumber, raw), shared);
            for (String family : families) {
              for (String size : sizesAndLimit[0].split(",")) {
                if (explicit.put(family + "." + size, limit) != null) {
                  throw malformed(lineNumber, raw, family + "." + size + " is listed twice");
                }
              }
            }
          }
        }
        default -> throw malformed(lineNumber, raw, "unknown kind " + fields[0]);
      }
    }
    return new InstanceAttachmentLimitTable(explicit, ladder, xen);
  }

  private static void requireNoSizes(String[] fields, int lineNumber, String raw, Runnable add) {
    if (fields.length != 2) {
      throw malformed(lineNumber, raw, fields[0] + " takes families only");
    }
    add.run();
  }

  private static int parseLimit(String text, int lineNumber, String raw) {
    int limit;
    try {
      limit = Integer.parseInt(text);
    } catch (NumberFormatException e) {
      throw malformed(lineNumber, raw, "limit '" + text + "' is not a number");
    }
    if (limit < 1) {
      throw malformed(lineNumber, raw, "limit must be at least 1, was " + limit);
    }
    return limit;
  }

  private static IllegalStateException malformed(int lineNumber, String line, String why) {
    return new IllegalStateException(RESOURCE + " line " + lineNumber + " (" + line.strip() + "): " + why);
  }

  private static InstanceAttachmentLimitTable load() {
    try (InputStream in = InstanceAttachmentLimitTable.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(RESOURCE + " is missing from the classpath next to "
            + InstanceAttachmentLimitTable.class.getName());
      }
      return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + RESOURCE, e);
    }
  }
}
