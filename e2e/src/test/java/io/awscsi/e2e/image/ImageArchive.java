package io.awscsi.e2e.image;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Predicate;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;

/**
 * A container image as a docker-archive tarball holds it (what {@code docker save}, skopeo and the local image builds
 * write, and {@code ctr images import} reads): its configuration and the file system its layers make, applied in
 * order with their whiteouts. Files whose path the given predicate accepts are also kept as text.
 */
public record ImageArchive(List<String> repoTags, Config config, Map<String, Node> files, Map<String, String> texts) {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** The parts of the image configuration a Dockerfile declares, and the machine architecture it is for. */
  public record Config(List<String> entrypoint, List<String> cmd, Map<String, String> env, String user,
      String workingDir, Map<String, String> labels, String architecture) {}

  /** One path of the image's file system. */
  public record Node(Type type, int mode, long uid, long gid, long size, String linkTarget) {
    public enum Type { FILE, DIRECTORY, SYMLINK, HARDLINK, OTHER }

    public boolean executable() {
      return (mode & 0111) != 0;
    }
  }

  public static ImageArchive read(Path tarball, Predicate<String> keepText) throws IOException {
    Map<String, byte[]> small = new HashMap<>();
    Map<String, List<LayerEntry>> layers = new HashMap<>();
    try (InputStream in = Files.newInputStream(tarball); TarArchiveInputStream outer = new TarArchiveInputStream(in)) {
      for (TarArchiveEntry entry; (entry = outer.getNextEntry()) != null; ) {
        String name = entry.getName();
        if (!entry.isFile()) {
          continue; // skopeo's legacy <id>/layer.tar entries are links to the layers
        }
        if (name.endsWith(".tar")) {
          layers.put(name, readLayer(new TarArchiveInputStream(outer), keepText));
        } else if (name.endsWith(".json")) {
          small.put(name, outer.readAllBytes());
        }
      }
    }
    JsonNode manifest = JSON.readTree(require(small, "manifest.json", tarball)).get(0);
    JsonNode configJson = JSON.readTree(require(small, manifest.get("Config").asText(), tarball));
    Map<String, Node> files = new TreeMap<>();
    Map<String, String> texts = new TreeMap<>();
    for (JsonNode layer : manifest.get("Layers")) {
      List<LayerEntry> entries = layers.get(layer.asText());
      if (entries == null) {
        throw new IOException(tarball + ": layer " + layer.asText() + " named by manifest.json is missing");
      }
      apply(entries, files, texts);
    }
    List<String> tags = new ArrayList<>();
    manifest.path("RepoTags").forEach(t -> tags.add(t.asText()));
    return new ImageArchive(List.copyOf(tags), config(configJson), files, texts);
  }

  private static byte[] require(Map<String, byte[]> small, String name, Path tarball) throws IOException {
    byte[] bytes = small.get(name);
    if (bytes == null) {
      throw new IOException(tarball + " has no " + name + ": not a docker-archive");
    }
    return bytes;
  }

  private static Config config(JsonNode image) {
    JsonNode c = image.path("config");
    Map<String, String> env = new LinkedHashMap<>();
    c.path("Env").forEach(e -> {
      String s = e.asText();
      int eq = s.indexOf('=');
      env.put(eq < 0 ? s : s.substring(0, eq), eq < 0 ? "" : s.substring(eq + 1));
    });
    Map<String, String> labels = new TreeMap<>();
    c.path("Labels").properties().forEach(p -> labels.put(p.getKey(), p.getValue().asText()));
    return new Config(strings(c.path("Entrypoint")), strings(c.path("Cmd")), env, c.path("User").asText(""),
        c.path("WorkingDir").asText(""), labels, image.path("architecture").asText(""));
  }

  private static List<String> strings(JsonNode array) {
    List<String> list = new ArrayList<>();
    array.forEach(n -> list.add(n.asText()));
    return List.copyOf(list);
  }

  private record LayerEntry(String path, Node node, byte[] text) {}

  private static List<LayerEntry> readLayer(TarArchiveInputStream layer, Predicate<String> keepText)
      throws IOException {
    List<LayerEntry> entries = new ArrayList<>();
    for (TarArchiveEntry e; (e = layer.getNextEntry()) != null; ) {
      String path = normalize(e.getName());
      Node.Type type = e.isSymbolicLink() ? Node.Type.SYMLINK : e.isLink() ? Node.Type.HARDLINK
          : e.isDirectory() ? Node.Type.DIRECTORY : e.isFile() ? Node.Type.FILE : Node.Type.OTHER;
      String link = e.isSymbolicLink() ? e.getLinkName() : e.isLink() ? normalize(e.getLinkName()) : null;
      byte[] text = null;
      if (type == Node.Type.FILE && keepText.test(path)) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        layer.transferTo(bytes);
        text = bytes.toByteArray();
      }
      entries.add(new LayerEntry(path, new Node(type, e.getMode() & 07777, e.getLongUserId(), e.getLongGroupId(),
          e.getSize(), link), text));
    }
    return entries;
  }

  /** Applies one layer: OCI whiteouts remove what earlier layers put there, then the layer's own entries land. */
  private static void apply(List<LayerEntry> entries, Map<String, Node> files, Map<String, String> texts) {
    for (LayerEntry e : entries) {
      String dir = parent(e.path());
      String base = e.path().substring(e.path().lastIndexOf('/') + 1);
      if (base.equals(".wh..wh..opq")) {
        removeBelow(dir, files, texts, false);
      } else if (base.startsWith(".wh.")) {
        removeBelow((dir.equals("/") ? "" : dir) + "/" + base.substring(4), files, texts, true);
      }
    }
    for (LayerEntry e : entries) {
      String base = e.path().substring(e.path().lastIndexOf('/') + 1);
      if (base.startsWith(".wh.")) {
        continue;
      }
      Node node = e.node();
      if (node.type() == Node.Type.HARDLINK && files.containsKey(node.linkTarget())) {
        Node target = files.get(node.linkTarget());
        node = new Node(target.type(), target.mode(), target.uid(), target.gid(), target.size(), null);
        if (texts.containsKey(e.node().linkTarget())) {
          texts.put(e.path(), texts.get(e.node().linkTarget()));
        }
      }
      if (node.type() != Node.Type.DIRECTORY) {
        removeBelow(e.path(), files, texts, true);
      }
      files.put(e.path(), node);
      if (e.text() != null) {
        texts.put(e.path(), new String(e.text(), StandardCharsets.UTF_8));
      }
    }
  }

  private static void removeBelow(String path, Map<String, Node> files, Map<String, String> texts, boolean self) {
    String prefix = path.equals("/") ? "/" : path + "/";
    files.keySet().removeIf(p -> (self && p.equals(path)) || (p.startsWith(prefix) && !p.equals(path)));
    texts.keySet().removeIf(p -> (self && p.equals(path)) || (p.startsWith(prefix) && !p.equals(path)));
  }

  private static String normalize(String name) {
    String p = name.startsWith("./") ? name.substring(1) : name.startsWith("/") ? name : "/" + name;
    while (p.length() > 1 && p.endsWith("/")) {
      p = p.substring(0, p.length() - 1);
    }
    return p;
  }

  private static String parent(String path) {
    int slash = path.lastIndexOf('/');
    return slash <= 0 ? "/" : path.substring(0, slash);
  }

  /** The path with every symbolic link on it followed inside the image, or empty when it leads nowhere. */
  public Optional<String> resolve(String path) {
    String current = "/";
    List<String> parts = new ArrayList<>(List.of(path.split("/")));
    int links = 0;
    while (!parts.isEmpty()) {
      String part = parts.removeFirst();
      if (part.isEmpty() || part.equals(".")) {
        continue;
      }
      if (part.equals("..")) {
        current = parent(current);
        continue;
      }
      String next = (current.equals("/") ? "" : current) + "/" + part;
      Node node = files.get(next);
      if (node == null && !parts.isEmpty()) {
        current = next; // a directory a layer left implicit (no entry of its own, only paths below it)
        continue;
      }
      if (node == null) {
        return Optional.empty();
      }
      if (node.type() == Node.Type.SYMLINK) {
        if (++links > 40) {
          return Optional.empty();
        }
        String target = node.linkTarget();
        List<String> rest = new ArrayList<>(List.of(target.split("/")));
        rest.addAll(parts);
        parts = rest;
        if (target.startsWith("/")) {
          current = "/";
        }
        continue;
      }
      current = next;
    }
    return Optional.of(current);
  }

  /** Where the image's PATH finds an executable file of that name (resolved), as a shell in the image would. */
  public Optional<String> which(String executable) {
    for (String dir : config.env().getOrDefault("PATH", "").split(":")) {
      Optional<String> found = resolve(dir + "/" + executable);
      if (found.isPresent() && files.get(found.get()).type() == Node.Type.FILE && files.get(found.get()).executable()) {
        return found;
      }
    }
    return Optional.empty();
  }

  public Optional<Node> node(String path) {
    return resolve(path).map(files::get);
  }

  public String text(String path) {
    String resolved = resolve(path).orElseThrow(() -> new UncheckedIOException(new IOException("no " + path)));
    String text = texts.get(resolved);
    if (text == null) {
      throw new IllegalArgumentException(path + " was not kept as text when the image was read");
    }
    return text;
  }

  /** The paths directly below a directory of the image. */
  public List<String> list(String directory) {
    String dir = resolve(directory).orElse(directory);
    String prefix = dir.equals("/") ? "/" : dir + "/";
    return files.keySet().stream()
        .filter(p -> p.startsWith(prefix) && p.length() > prefix.length() && p.indexOf('/', prefix.length()) < 0)
        .toList();
  }
}
