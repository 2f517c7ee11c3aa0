package io.awscsi.launcher;

import com.google.protobuf.MessageLite;
import csi.v1.ControllerGrpc;
import csi.v1.GroupControllerGrpc;
import csi.v1.IdentityGrpc;
import csi.v1.NodeGrpc;
import io.awscsi.core.json.CsiJsonParser;
import io.awscsi.core.json.CsiJsonPrinter;
import io.grpc.CallOptions;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import pluginregistration.RegistrationGrpc;

/**
 * {@code aws-csi-driver client RPC [JSON]}: calls one CSI RPC over the socket with a JSON request (proto3 JSON names,
 * e.g. {@code {"name":"pvc-1","volumeCapabilities":[...]}}) and prints the JSON response, for trying the driver by
 * hand without grpcurl. The kubelet's registration calls (GetInfo, NotifyRegistrationStatus) go to the registration
 * socket the same way.
 */
public final class CsiClient {

  private CsiClient() {}

  public static int run(String endpoint, String rpc, String json, PrintStream out, PrintStream err) {
    MethodDescriptor<MessageLite, MessageLite> method = find(rpc);
    if (method == null) {
      err.println("unknown RPC " + rpc + "; one of: " + String.join(", ", names()));
      return 2;
    }
    ManagedChannel channel = Grpc.newChannelBuilder(endpoint.replaceFirst("^unix:/+", "unix:///"),
        InsecureChannelCredentials.create()).build();
    try {
      MessageLite request = new CsiJsonParser().parse(json, prototype(method));
      MessageLite response = ClientCalls.blockingUnaryCall(channel, method,
          CallOptions.DEFAULT.withDeadlineAfter(5, TimeUnit.MINUTES), request);
      out.println(CsiJsonPrinter.pretty().print(response));
      return 0;
    } catch (StatusRuntimeException e) {
      err.println(rpc + " failed: " + e.getStatus().getCode() + ": " + e.getStatus().getDescription());
      return 1;
    } catch (CsiJsonParser.JsonMismatchException e) {
      err.println("request JSON does not match " + method.getBareMethodName() + "Request: " + e.getMessage());
      return 2;
    } finally {
      channel.shutdownNow();
    }
  }

  @SuppressWarnings("unchecked")
  private static MessageLite prototype(MethodDescriptor<MessageLite, MessageLite> method) {
    var marshaller = (MethodDescriptor.PrototypeMarshaller<MessageLite>) method.getRequestMarshaller();
    return marshaller.getMessagePrototype();
  }

  @SuppressWarnings("unchecked")
  private static MethodDescriptor<MessageLite, MessageLite> find(String rpc) {
    return (MethodDescriptor<MessageLite, MessageLite>) methods()
        .filter(m -> m.getBareMethodName().equalsIgnoreCase(rpc)).findFirst().orElse(null);
  }

  private static List<String> names() {
    return methods().map(MethodDescriptor::getBareMethodName).sorted().toList();
  }

  private static Stream<MethodDescriptor<?, ?>> methods() {
    return Stream.of(IdentityGrpc.getServiceDescriptor(), ControllerGrpc.getServiceDescriptor(),
        GroupControllerGrpc.getServiceDescriptor(), NodeGrpc.getServiceDescriptor(),
        RegistrationGrpc.getServiceDescriptor()).flatMap(s -> s.getMethods().stream());
  }
}
