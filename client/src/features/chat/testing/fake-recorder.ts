/**
 * Stand-ins for the browser's MediaRecorder and microphone (navigator.mediaDevices.getUserMedia)
 * for jsdom, which has neither: they record how the page drives them and produce a small WebM
 * blob when stopped, as a browser would.
 */

/** The EBML header bytes a WebM file starts with, then a little payload. */
export const FAKE_WEBM = new Uint8Array([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81, 0x01]);

export class FakeMediaRecorder {
  static instances: FakeMediaRecorder[] = [];
  static isTypeSupported(type: string): boolean {
    return type.startsWith('audio/webm');
  }

  state: 'inactive' | 'recording' = 'inactive';
  readonly mimeType: string;
  ondataavailable: ((event: { data: Blob }) => void) | null = null;
  onstop: (() => void) | null = null;

  constructor(
    readonly stream: FakeMediaStream,
    options?: { mimeType?: string },
  ) {
    this.mimeType = options?.mimeType ?? 'audio/webm';
    FakeMediaRecorder.instances.push(this);
  }

  static latest(): FakeMediaRecorder {
    const last = FakeMediaRecorder.instances[FakeMediaRecorder.instances.length - 1];
    if (!last) throw new Error('no MediaRecorder was created');
    return last;
  }

  start(): void {
    this.state = 'recording';
  }

  stop(): void {
    if (this.state === 'inactive') return;
    this.state = 'inactive';
    this.ondataavailable?.({ data: new Blob([FAKE_WEBM], { type: this.mimeType }) });
    this.onstop?.();
  }
}

export class FakeMediaStream {
  stopped = false;
  getTracks() {
    return [{ stop: () => (this.stopped = true) }];
  }
}

/** Installs the fakes on window and navigator; returns how to take them away again. */
export function installFakeRecorder(options: { deny?: boolean } = {}): { streams: FakeMediaStream[]; uninstall(): void } {
  FakeMediaRecorder.instances = [];
  const streams: FakeMediaStream[] = [];
  const w = window as unknown as { MediaRecorder?: unknown };
  w.MediaRecorder = FakeMediaRecorder;
  Object.defineProperty(navigator, 'mediaDevices', {
    configurable: true,
    value: {
      getUserMedia: async () => {
        if (options.deny) throw Object.assign(new Error('denied'), { name: 'NotAllowedError' });
        const stream = new FakeMediaStream();
        streams.push(stream);
        return stream;
      },
    },
  });
  return {
    streams,
    uninstall: () => {
      delete w.MediaRecorder;
      delete (navigator as unknown as { mediaDevices?: unknown }).mediaDevices;
    },
  };
}
