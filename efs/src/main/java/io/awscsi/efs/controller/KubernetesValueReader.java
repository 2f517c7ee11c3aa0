package io.awscsi.efs.controller;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * Reads one value of a ConfigMap or Secret through the Kubernetes API (the EFS controller's file system id
 * references). The answer says what happened, so the caller can name its own parameter in the error: found, missing
 * (object or key), forbidden (RBAC), or the API unreachable within the time given.
 */
public final class KubernetesValueReader {

  /** The object kinds a value can come from. */
  public enum Kind {
    CONFIG_MAP("ConfigMap"), SECRET("Secret");

    private final String displayName;

    Kind(String displayName) {
      this.displayName = displayName;
    }

    public String displayName() {
      return displayName;
    }
  }

  /** What a read found. */
  public sealed interface Result {
    record Found(String value) implements Result {}

    /** The object or its key does not exist; {@code what} says which. */
    record Missing(String what) implements Result {}

    /** The API refused the read (403): the driver's service account lacks the RBAC to read it. */
    record Forbidden(String message) implements Result {}

    /** No answer in time, or an error that says nothing of the object. */
    record Unreachable(String message) implements Result {}
  }

  private final Supplier<KubernetesClient> client;

  public KubernetesValueReader(Supplier<KubernetesClient> client) {
    this.client = client;
  }

  /** Reads {@code key} of the object; gives up after {@code timeout} (the caller's deadline). */
  public Result read(Kind kind, String namespace, String name, String key, Duration timeout) {
    String object = kind.displayName() + " " + namespace + "/" + name;
    CompletableFuture<Result> read = CompletableFuture.supplyAsync(() -> readNow(kind, namespace, name, key, object),
        command -> Thread.ofVirtual().name("k8s-read").start(command));
    try {
      return read.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      read.cancel(true);
      return new Result.Unreachable("the Kubernetes API did not answer the read of " + object + " within "
          + timeout.toMillis() + " ms");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Result.Unreachable("interrupted while reading " + object);
    } catch (ExecutionException e) {
      return new Result.Unreachable("reading " + object + " failed: " + e.getCause().getMessage());
    }
  }

  private Result readNow(Kind kind, String namespace, String name, String key, String object) {
    Map<String, String> data;
    try {
      KubernetesClient api = client.get();
      if (kind == Kind.CONFIG_MAP) {
        ConfigMap map = api.configMaps().inNamespace(namespace).withName(name).get();
        if (map == null) {
          return new Result.Missing(object + " does not exist");
        }
        data = map.getData();
      } else {
        Secret secret = api.secrets().inNamespace(namespace).withName(name).get();
        if (secret == null) {
          return new Result.Missing(object + " does not exist");
        }
        data = secret.getData();
        if (data != null && data.containsKey(key)) {
          try {
            return new Result.Found(new String(Base64.getDecoder().decode(data.get(key).strip()),
                StandardCharsets.UTF_8));
          } catch (IllegalArgumentException e) {
            return new Result.Missing("key " + key + " of " + object + " is not base64");
          }
        }
        data = secret.getStringData();
      }
    } catch (KubernetesClientException e) {
      if (e.getCode() == 403) {
        return new Result.Forbidden("the Kubernetes API refused to read " + object + ": "
            + (e.getStatus() != null && e.getStatus().getMessage() != null ? e.getStatus().getMessage()
                : e.getMessage()));
      }
      if (e.getCode() == 404) {
        return new Result.Missing(object + " does not exist");
      }
      return new Result.Unreachable("reading " + object + " failed: " + e.getMessage());
    } catch (RuntimeException e) {
      return new Result.Unreachable("reading " + object + " failed: " + e.getMessage());
    }
    if (data == null || !data.containsKey(key)) {
      return new Result.Missing(object + " has no key " + key);
    }
    return new Result.Found(data.get(key));
  }
}
