package io.awscsi.realism.proxy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.ToIntFunction;

/**
 * Paging over a full listing, as AWS does it: items are ordered by key and a page token names the last key handed out
 * and the request it belongs to, so deletions between pages skip nothing and a token cannot be replayed on another
 * request.
 */
public final class PageTokens {

  /** One page and the token of the next one, if any. */
  public record Page<T>(List<T> items, Optional<String> nextToken) {}

  private PageTokens() {}

  /**
   * Cuts one page of at least {@code size} units out of {@code all}.
   *
   * @param key sort key and resume point of an item (its id)
   * @param weight units an item counts for (instances of a reservation; 1 otherwise)
   * @param token the request's page token, if any
   * @param requestFingerprint identifies the request apart from its paging parameters
   * @throws IllegalArgumentException when the token is malformed or belongs to another request
   */
  public static <T> Page<T> page(List<T> all, Function<T, String> key, ToIntFunction<T> weight, int size,
                                 Optional<String> token, String requestFingerprint) {
    var sorted = new ArrayList<>(all);
    sorted.sort(Comparator.comparing(key));
    String after = token.map(t -> resumeKey(t, requestFingerprint)).orElse(null);
    var page = new ArrayList<T>();
    int units = 0;
    int index = 0;
    while (index < sorted.size() && after != null && key.apply(sorted.get(index)).compareTo(after) <= 0) {
      index++;
    }
    while (index < sorted.size() && units < size) {
      T item = sorted.get(index++);
      page.add(item);
      units += Math.max(1, weight.applyAsInt(item));
    }
    Optional<String> next = index < sorted.size() && !page.isEmpty()
        ? Optional.of(token(key.apply(page.getLast()), requestFingerprint))
        : Optional.empty();
    return new Page<>(page, next);
  }

  static String token(String lastKey, String requestFingerprint) {
    String raw = lastKey + "\n" + Integer.toHexString(requestFingerprint.hashCode());
    return Base64.getUrlEncoder().withoutPadding().encodeToString(raw.getBytes(StandardCharsets.UTF_8));
  }

  private static String resumeKey(String token, String requestFingerprint) {
    String raw;
    try {
      raw = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("page token is not one this service issued");
    }
    int newline = raw.lastIndexOf('\n');
    if (newline < 0 || !raw.substring(newline + 1).equals(Integer.toHexString(requestFingerprint.hashCode()))) {
      throw new IllegalArgumentException("page token does not belong to this request");
    }
    return raw.substring(0, newline);
  }
}
