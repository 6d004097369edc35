// An interactive terminal session, whatever carries it (an SSH shell channel in src/remote, a pod
// exec over the API in src/cluster): the terminal (src/extension/terminal.ts) speaks only to this.
// The bookkeeping every carrier needs (listeners, one end, text decoding) is here, once.

export interface SessionEnd {
  /** The remote shell's exit code, when it exited (e.g. `exit`). */
  exitCode?: number;
  /** Set when the session ended without the shell exiting: the connection dropped or failed. */
  lost?: string;
}

export interface InteractiveSession {
  /** user@host:port or pod name, for messages. */
  readonly label: string;
  write(data: string): void;
  /** Ends the input (stdin closed; a shell reading a script then runs it and exits), where the carrier can. */
  endInput?(): void;
  resize(cols: number, rows: number): void;
  onData(listener: (text: string) => void): void;
  /** Called once, when the session ends for any reason (including close()). */
  onEnd(listener: (end: SessionEnd) => void): void;
  /** Ends the session (closes the channel; a pod session also deletes its pod). */
  close(): void;
}

/** What a carrier does with the session's input and how it closes its channel. */
export interface SessionCarrier {
  write(data: string): void;
  endInput?(): void;
  resize(cols: number, rows: number): void;
  close(): void;
}

export interface SessionHub {
  /** Passes output on, decoded as UTF-8 across chunks (a character may straddle two packets). */
  output(chunk: Uint8Array): void;
  /**
   * Ends the session once: with the exit code when the shell exited, quietly when close() asked for
   * it, else as lost with `lost`. `cleanup` (closing a connection, deleting a pod) runs first.
   */
  end(exitCode: number | undefined, lost: string): void;
  /** Ends the session once with exactly this outcome. */
  finish(end: SessionEnd): void;
  /** The session to hand out; input after the end is dropped. */
  session(carrier: SessionCarrier): InteractiveSession;
}

export function sessionHub(label: string, cleanup: () => void): SessionHub {
  let ended: SessionEnd | undefined;
  let closedByUs = false;
  const dataListeners: ((t: string) => void)[] = [];
  const endListeners: ((e: SessionEnd) => void)[] = [];
  const decoder = new TextDecoder('utf-8');
  const finish = (end: SessionEnd) => {
    if (ended) return;
    ended = end;
    cleanup();
    for (const l of endListeners.splice(0)) l(end);
  };
  return {
    output: (chunk) => {
      const text = decoder.decode(chunk, { stream: true });
      if (text) for (const l of dataListeners) l(text);
    },
    end: (exitCode, lost) => finish(exitCode !== undefined ? { exitCode } : closedByUs ? {} : { lost }),
    finish,
    session: (carrier) => ({
      label,
      write: (data) => {
        if (!ended) carrier.write(data);
      },
      ...(carrier.endInput
        ? {
            endInput: () => {
              if (!ended) carrier.endInput?.();
            },
          }
        : {}),
      resize: (cols, rows) => {
        if (!ended) carrier.resize(cols, rows);
      },
      onData: (l) => void dataListeners.push(l),
      onEnd: (l) => {
        if (ended) l(ended);
        else endListeners.push(l);
      },
      close: () => {
        if (ended) return;
        closedByUs = true;
        carrier.close();
      },
    }),
  };
}
