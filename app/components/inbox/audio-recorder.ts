/**
 * Records an audio clip from the microphone (MediaRecorder), loaded only when the agent presses Record (ADR 156).
 * Failures are thrown as they come (NotAllowedError when the microphone is refused; NotSupportedError when the
 * browser cannot record): the reply box says which in plain words.
 */
const TYPES: [string, string][] = [
  ['audio/webm;codecs=opus', 'webm'],
  ['audio/webm', 'webm'],
  ['audio/ogg;codecs=opus', 'ogg'],
  ['audio/mp4', 'm4a'],
];

export async function startRecording(): Promise<{ stop: () => Promise<File>; cancel: () => void }> {
  if (typeof MediaRecorder === 'undefined' || !navigator.mediaDevices?.getUserMedia) {
    throw Object.assign(new Error('This browser cannot record audio'), { name: 'NotSupportedError' });
  }
  const chosen = TYPES.find(([t]) => MediaRecorder.isTypeSupported(t));
  if (!chosen) throw Object.assign(new Error('This browser records no format Parley accepts'), { name: 'NotSupportedError' });
  const stream = await navigator.mediaDevices.getUserMedia({ audio: true });
  const release = () => stream.getTracks().forEach((t) => t.stop());
  const recorder = new MediaRecorder(stream, { mimeType: chosen[0] });
  const chunks: Blob[] = [];
  recorder.ondataavailable = (e) => {
    if (e.data.size) chunks.push(e.data);
  };
  recorder.start();
  return {
    stop: () =>
      new Promise<File>((resolve, reject) => {
        recorder.onstop = () => {
          release();
          if (!chunks.length) return reject(new Error('nothing was recorded'));
          const stamp = new Date().toISOString().slice(0, 19).replace(/[-:]/g, '').replace('T', '-');
          resolve(new File(chunks, `recording-${stamp}.${chosen[1]}`, { type: chosen[0].split(';')[0] }));
        };
        recorder.onerror = () => {
          release();
          reject(new Error('the recorder stopped with an error'));
        };
        recorder.stop();
      }),
    cancel: () => {
      if (recorder.state !== 'inactive') recorder.stop();
      release();
    },
  };
}
