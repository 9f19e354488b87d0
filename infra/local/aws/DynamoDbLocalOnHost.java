// Starts DynamoDB Local listening on one address only. DynamoDB Local has no option for the
// address (its Jetty server binds every interface); this launcher builds the server from the
// usual command-line arguments, sets the host on its connectors before it starts, and starts it.
// Run by dynamodb-local.ts as a single-file source program (Java 11+):
//   java -cp DynamoDBLocal.jar DynamoDbLocalOnHost.java <host> <DynamoDB Local arguments...>
import java.lang.reflect.Field;
import java.util.Arrays;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

public class DynamoDbLocalOnHost {
  public static void main(String[] args) throws Exception {
    String host = args[0];
    DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(Arrays.copyOfRange(args, 1, args.length));
    Field field = DynamoDBProxyServer.class.getDeclaredField("server");
    field.setAccessible(true);
    Object jetty = field.get(proxy);
    for (Object connector : (Object[]) jetty.getClass().getMethod("getConnectors").invoke(jetty)) {
      connector.getClass().getMethod("setHost", String.class).invoke(connector, host);
    }
    proxy.start();
    System.out.println("DynamoDB Local listening on " + host);
  }
}
