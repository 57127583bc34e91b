// The web API inside the node's process (gs_node.json /webapi/embedded, store-node --webapi,
// what `npm start` runs). It is the web API of lib/webapi/ on the settings and repository of
// GS_HOME/webapi/conf, as the store-webapi process would run it, with one difference: the
// stores of the node's own cluster reach the node's transaction server through in-process
// sockets (lib/server/in-process-socket.ts), so a request crosses one socket (the caller's
// HTTP connection) instead of three more hops through another process. The node still sees a
// client connection per store: the handshake, the credentials, the privileges, connectionLimit
// and the reply bounds apply as they do to a TCP client, and errors are the same codes. Other
// clusters of repository.json are reached over TCP as before.
//
// Order: started once the transaction server listens; closed before it, so requests under way
// finish against a running node (StoreNode.shutdownServices).

import type { Logger } from 'pino';
import type { HomeEnvironment } from '../config/home.ts';
import type { TransactionServer } from '../server/transaction-server.ts';
import { prepareWebApiHome } from '../webapi/config/webapi-home.ts';
import type { Repository } from '../webapi/config/repository.ts';
import type { WebApiSettings } from '../webapi/config/webapi-settings.ts';
import type { WebApiServer } from '../webapi/webapi-server.ts';

/** How the node runs its web API; given by tools/store-node.ts (and tests). */
export interface NodeWebApiChoice {
  /** Overrides gs_node.json's /webapi/embedded when given (store-node --webapi). */
  embedded?: boolean;
  /** The web API's logger, given the node's event log directory (its JSON lines go there). */
  logger: (logDirectory: string) => Logger;
  /** Over store_webapi.properties' settings (tests: port 0). */
  settings?: Partial<WebApiSettings>;
  /** Instead of repository.json (tests: clusters that do not exist). */
  repository?: Repository;
}

export interface NodeWebApi {
  server: WebApiServer;
  /** `http://address:port/<basePath>/v2/`, one per base path. */
  urls: string[];
  /** Stops listening, lets requests under way finish, closes its stores; logged as store-webapi does. */
  close(): Promise<void>;
}

export async function startNodeWebApi(options: {
  environment: HomeEnvironment;
  choice: NodeWebApiChoice;
  clusterName: string;
  logDirectory: string;
  transactionServer: TransactionServer;
  /** The node's access catalog now (LocalCluster.accessCatalog). */
  accessCatalog: () => unknown;
}): Promise<NodeWebApi> {
  const { choice, transactionServer } = options;
  const logger = choice.logger(options.logDirectory);
  const home = await prepareWebApiHome(options.environment);
  for (const path of home.createdFiles) logger.warn({ path }, 'created a default settings file');
  for (const warning of home.warnings) logger.warn(warning);
  const settings = { ...home.settings, ...choice.settings };
  // Loaded here, not with the node: Fastify and the routes cost a node that serves no web API
  // about half a second of its start (measured 0.5-0.8 s at load 20).
  const { WebApiServer } = await import('../webapi/webapi-server.ts');
  const server = await WebApiServer.start({
    repository: choice.repository ?? home.repository, settings, logger,
    localCluster: {
      name: options.clusterName,
      transport: {
        connect: (_address, received) => {
          const socket = transactionServer.connectInProcess();
          socket.on('data', received);
          return socket;
        },
      },
      accessCatalog: options.accessCatalog,
    },
  });
  const urls = settings.basePaths.map((basePath) =>
    `http://${server.address}:${server.port}/${basePath}/v2/`);
  logger.info({ url: urls[0], urls, webApiHome: home.webApiHome, embedded: true,
    clusters: home.repository.clusters.map((cluster) => cluster.name) }, 'web API started');
  return {
    server, urls,
    async close() {
      logger.info('web API stopping');
      await server.close();
      logger.info('web API stopped');
      logger.flush();
    },
  };
}
