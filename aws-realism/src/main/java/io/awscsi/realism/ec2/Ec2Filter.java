package io.awscsi.realism.ec2;

import io.awscsi.realism.proxy.QueryParams;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * One {@code Filter.N.Name}/{@code Filter.N.Value.M} of a Describe call. Filters on states that the proxy rewrites
 * ({@code status}, {@code attachment.status}, {@code modification-state}) are taken out of the request to moto, which
 * knows only final states, and applied by the proxy to the rewritten answer.
 */
record Ec2Filter(String name, List<String> values) {

  private static final Pattern FILTER_KEY = Pattern.compile("Filter\\.(\\d+)\\.(Name|Value\\.(\\d+))");

  static List<Ec2Filter> parse(QueryParams params) {
    var names = new TreeMap<Integer, String>();
    var values = new TreeMap<Integer, TreeMap<Integer, String>>();
    params.asMap().forEach((key, value) -> {
      var matcher = FILTER_KEY.matcher(key);
      if (matcher.matches()) {
        int index = Integer.parseInt(matcher.group(1));
        if (matcher.group(3) == null) {
          names.put(index, value);
        } else {
          values.computeIfAbsent(index, i -> new TreeMap<>()).put(Integer.parseInt(matcher.group(3)), value);
        }
      }
    });
    var filters = new ArrayList<Ec2Filter>();
    names.forEach((index, name) ->
        filters.add(new Ec2Filter(name, List.copyOf(values.getOrDefault(index, new TreeMap<>()).values()))));
    return filters;
  }

  /** The parameters with their filters replaced by {@code filters}, renumbered from 1. */
  static QueryParams replace(QueryParams params, List<Ec2Filter> filters) {
    QueryParams result = params.without(key -> FILTER_KEY.matcher(key).matches());
    int index = 1;
    for (Ec2Filter filter : filters) {
      result = result.with("Filter." + index + ".Name", filter.name());
      int valueIndex = 1;
      for (String value : filter.values()) {
        result = result.with("Filter." + index + ".Value." + valueIndex++, value);
      }
      index++;
    }
    return result;
  }

  /** EC2 filter values match exactly, with {@code *} and {@code ?} as wildcards. */
  boolean matches(String actual) {
    if (actual == null) {
      return false;
    }
    for (String value : values) {
      var regex = new StringBuilder();
      for (char c : value.toCharArray()) {
        switch (c) {
          case '*' -> regex.append(".*");
          case '?' -> regex.append('.');
          default -> regex.append(Pattern.quote(String.valueOf(c)));
        }
      }
      if (actual.matches(regex.toString())) {
        return true;
      }
    }
    return false;
  }
}
