package io.awscsi.launcher;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** The version stamped into the jar at build time. */
public final class BuildInfo {

  private BuildInfo() {}

  public static String version() {
    try (InputStream in = BuildInfo.class.getResourceAsStream("version.properties")) {
      Properties p = new Properties();
      if (in != null) {
        p.load(in);
      }
      return p.getProperty("version", "dev");
    } catch (IOException e) {
      return "dev";
    }
  }
}
