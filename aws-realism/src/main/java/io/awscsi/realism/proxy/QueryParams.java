package io.awscsi.realism.proxy;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * Parameters of an AWS query-protocol request ({@code Action=CreateVolume&VolumeId.1=...}), in their original order.
 * Immutable: the {@code with}/{@code without} methods return copies.
 */
public final class QueryParams {

  private final Map<String, String> values;

  private QueryParams(Map<String, String> values) {
    this.values = Collections.unmodifiableMap(values);
  }

  public static QueryParams parse(String form) {
    var values = new LinkedHashMap<String, String>();
    if (form != null && !form.isBlank()) {
      for (String pair : form.split("&")) {
        if (pair.isEmpty()) {
          continue;
        }
        int equals = pair.indexOf('=');
        String key = equals < 0 ? pair : pair.substring(0, equals);
        String value = equals < 0 ? "" : pair.substring(equals + 1);
        values.put(URLDecoder.decode(key, StandardCharsets.UTF_8), URLDecoder.decode(value, StandardCharsets.UTF_8));
      }
    }
    return new QueryParams(values);
  }

  public static QueryParams of(Map<String, String> values) {
    return new QueryParams(new LinkedHashMap<>(values));
  }

  public Map<String, String> asMap() {
    return values;
  }

  public Optional<String> get(String name) {
    return Optional.ofNullable(values.get(name));
  }

  public boolean has(String name) {
    return values.containsKey(name);
  }

  /** The members of a list parameter ({@code VolumeId.1}, {@code VolumeId.2}, ...) ordered by index. */
  public List<String> list(String name) {
    Pattern member = Pattern.compile(Pattern.quote(name) + "\\.(\\d+)");
    var byIndex = new TreeMap<Integer, String>();
    values.forEach((key, value) -> {
      var matcher = member.matcher(key);
      if (matcher.matches()) {
        byIndex.put(Integer.parseInt(matcher.group(1)), value);
      }
    });
    return new ArrayList<>(byIndex.values());
  }

  public QueryParams with(String name, String value) {
    var copy = new LinkedHashMap<>(values);
    copy.put(name, value);
    return new QueryParams(copy);
  }

  public QueryParams without(Predicate<String> keyToDrop) {
    var copy = new LinkedHashMap<String, String>();
    values.forEach((key, value) -> {
      if (!keyToDrop.test(key)) {
        copy.put(key, value);
      }
    });
    return new QueryParams(copy);
  }

  public QueryParams withoutKeys(String... names) {
    List<String> dropped = List.of(names);
    return without(dropped::contains);
  }

  /** The parameters, sorted, without the given ones: equal fingerprints mean the same request. */
  public String fingerprint(String... ignoredNames) {
    List<String> ignored = List.of(ignoredNames);
    var sorted = new TreeMap<String, String>();
    values.forEach((key, value) -> {
      if (!ignored.contains(key)) {
        sorted.put(key, value);
      }
    });
    return sorted.toString();
  }

  public String encode() {
    var out = new StringBuilder();
    values.forEach((key, value) -> {
      if (!out.isEmpty()) {
        out.append('&');
      }
      out.append(URLEncoder.encode(key, StandardCharsets.UTF_8)).append('=')
          .append(URLEncoder.encode(value, StandardCharsets.UTF_8));
    });
    return out.toString();
  }

  @Override
  public String toString() {
    return values.toString();
  }
}
