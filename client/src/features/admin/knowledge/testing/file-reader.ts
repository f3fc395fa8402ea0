/**
 * Stand-ins for the browser's FileReader: one that fails every read, and one whose reads finish
 * only when the test says so (to observe progress). Install with vi.stubGlobal('FileReader', ...).
 */
type Reader = {
  result: string | ArrayBuffer | null;
  error: DOMException | null;
  onload: (() => void) | null;
  onerror: (() => void) | null;
  onabort: (() => void) | null;
};

export function failingFileReader() {
  return class FailingFileReader implements Reader {
    result = null;
    error: DOMException | null = null;
    onload: (() => void) | null = null;
    onerror: (() => void) | null = null;
    onabort: (() => void) | null = null;
    private fail() {
      setTimeout(() => {
        this.error = new DOMException('The file could not be read', 'NotReadableError');
        this.onerror?.();
      });
    }
    readAsText() {
      this.fail();
    }
    readAsDataURL() {
      this.fail();
    }
    readAsArrayBuffer() {
      this.fail();
    }
  };
}

/** Reads really happen (through the real FileReader) but complete when `release()` is called. */
export function gatedFileReader(Real: typeof FileReader) {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  class GatedFileReader implements Reader {
    result: string | ArrayBuffer | null = null;
    error: DOMException | null = null;
    onload: (() => void) | null = null;
    onerror: (() => void) | null = null;
    onabort: (() => void) | null = null;
    private run(start: (reader: FileReader) => void) {
      const real = new Real();
      real.onload = () =>
        void gate.then(() => {
          this.result = real.result;
          this.onload?.();
        });
      start(real);
    }
    readAsText(blob: Blob) {
      this.run((r) => r.readAsText(blob));
    }
    readAsDataURL(blob: Blob) {
      this.run((r) => r.readAsDataURL(blob));
    }
    readAsArrayBuffer(blob: Blob) {
      this.run((r) => r.readAsArrayBuffer(blob));
    }
  }
  return { Reader: GatedFileReader, release: () => release() };
}
