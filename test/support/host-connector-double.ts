// A HostConnector double for WindowsHost's own logic (retries, reconnects): a host that goes silent on the
// first command it gets, as one whose packets are dropped: the connection is lost to unanswered keepalives
// and every connect from then on times out. Counts the connects asked for. Test double only.
import {
  ConnectionLostError,
  ConnectTimeoutError,
  type HostConnection,
  type HostConnector,
} from '../../src/remote/types';

export interface SilentConnectorDouble extends HostConnector {
  /** Connects asked for so far. */
  readonly connects: number;
}

export function silentConnectorDouble(label = 'Administrator@192.0.2.10:22'): SilentConnectorDouble {
  let connects = 0;
  let silent = false;
  const connection = (): HostConnection => {
    let connected = true;
    return {
      label,
      get connected() {
        return connected;
      },
      exec: async () => {
        silent = true;
        connected = false;
        throw new ConnectionLostError(label, new Error('no reply to 3 SSH keepalives'));
      },
      sftpPut: async () => undefined,
      sftpGet: async () => ({ bytes: 0 }),
      sftpRemove: async () => undefined,
      close: () => void (connected = false),
    };
  };
  return {
    label,
    get connects() {
      return connects;
    },
    connect: async () => {
      connects++;
      if (silent) throw new ConnectTimeoutError(label, 20_000);
      return connection();
    },
  };
}
