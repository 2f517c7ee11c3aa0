package io.awscsi.ebs.volume;

/**
 * Keys of the publish context that ControllerPublishVolume hands to the node, spelled as upstream so a volume attached
 * by either driver stages the same way. Defined here, between the controller that writes them and the node that reads
 * them.
 */
public final class PublishContextKeys {

  /** The device name the controller attached the volume as ({@code /dev/xvdaa}). */
  public static final String DEVICE_PATH = "devicePath";

  private PublishContextKeys() {}
}
