import { useEffect, useRef, useState, type RefObject } from 'react';
import { ImagePlus, Mic, Square, Trash2 } from 'lucide-react';
import { ErrorList } from '~/components/ui/forms';

const IMAGE_ACCEPT = 'image/png,image/jpeg,image/gif,image/webp';
const AUDIO_ACCEPT = 'audio/webm,audio/ogg,audio/mpeg,audio/mp4,audio/x-m4a,audio/wav,.webm,.ogg,.oga,.opus,.mp3,.m4a,.wav';

/** A file input's files replaced (DataTransfer is the only way a script can set them); the form sends them as chosen. */
function setFiles(input: HTMLInputElement, files: File[]) {
  const dt = new DataTransfer();
  for (const f of files) dt.items.add(f);
  input.files = dt.files;
}

/**
 * The reply's inline images and audio clip (ADR 156). Without JavaScript: two file fields; an image goes where the
 * message says [image] (or [image: its name]), else at the end. With JavaScript: pasting an image into the message,
 * or "Insert image", adds it to the same field and types [image: name] at the cursor; Record fills the audio field.
 */
export function ReplyMedia({
  textarea,
  hints,
  errors,
}: {
  textarea: RefObject<HTMLTextAreaElement>;
  hints: { images: string; audio: string };
  errors: { images?: string[]; audio?: string[] };
}) {
  const [js, setJs] = useState(false);
  useEffect(() => setJs(true), []);
  const images = useRef<HTMLInputElement>(null);
  const picker = useRef<HTMLInputElement>(null);
  const [imageNote, setImageNote] = useState('');

  const addImages = (picked: File[]) => {
    const input = images.current;
    const box = textarea.current;
    if (!input || !box || !picked.length) return;
    const current = Array.from(input.files ?? []);
    const taken = new Set(current.map((f) => f.name.toLowerCase()));
    const added = picked.map((f, i) => {
      // Pasted screenshots are all "image.png": each gets a name of its own, which its placeholder names.
      const ext = (f.type.split('/')[1] ?? 'png').replace('jpeg', 'jpg');
      let name = f.name && f.name !== 'image.png' ? f.name.replace(/[[\]]/g, '') : `pasted-${current.length + i + 1}.${ext}`;
      for (let n = 2; taken.has(name.toLowerCase()); n++) name = name.replace(/(-\d+)?(\.\w+)?$/, `-${n}$2`);
      taken.add(name.toLowerCase());
      return new File([f], name, { type: f.type });
    });
    setFiles(input, [...current, ...added]);
    box.focus();
    box.setRangeText(added.map((f) => `[image: ${f.name}]`).join('\n'), box.selectionStart, box.selectionEnd, 'end');
    box.dispatchEvent(new Event('input', { bubbles: true }));
    setImageNote(`${added.map((f) => f.name).join(', ')} will be sent in the message, where its [image: …] line is.`);
  };

  useEffect(() => {
    const box = textarea.current;
    if (!box) return;
    const onPaste = (e: ClipboardEvent) => {
      const files = Array.from(e.clipboardData?.files ?? []).filter((f) => f.type.startsWith('image/'));
      if (!files.length) return;
      e.preventDefault();
      addImages(files);
    };
    box.addEventListener('paste', onPaste);
    return () => box.removeEventListener('paste', onPaste);
  });

  return (
    <>
      {js ? (
        <div className="media-tools" role="toolbar" aria-label="Media">
          <button type="button" className="btn" onClick={() => picker.current?.click()} data-testid="insert-image">
            <ImagePlus aria-hidden="true" size={16} /> Insert image
          </button>
          <input
            ref={picker}
            type="file"
            accept={IMAGE_ACCEPT}
            multiple
            hidden
            tabIndex={-1}
            aria-hidden="true"
            onChange={(e) => {
              addImages(Array.from(e.currentTarget.files ?? []));
              e.currentTarget.value = '';
            }}
          />
          <p className="muted" role="status">
            {imageNote}
          </p>
        </div>
      ) : null}
      <div className="field">
        <label htmlFor="reply-images">Inline images</label>
        <input
          ref={images}
          id="reply-images"
          type="file"
          name="inlineImages"
          multiple
          accept={IMAGE_ACCEPT}
          aria-invalid={errors.images ? true : undefined}
          aria-describedby="reply-images-hint"
        />
        <small id="reply-images-hint" className="muted">
          {hints.images}
        </small>
        <ErrorList errors={errors.images} />
      </div>
      <AudioField js={js} hint={hints.audio} errors={errors.audio} />
    </>
  );
}

type Recording = { stop: () => Promise<File>; cancel: () => void };

function AudioField({ js, hint, errors }: { js: boolean; hint: string; errors?: string[] }) {
  const input = useRef<HTMLInputElement>(null);
  const recording = useRef<Recording | null>(null);
  const [state, setState] = useState<'idle' | 'starting' | 'recording' | 'recorded'>('idle');
  const [note, setNote] = useState('');
  const [clip, setClip] = useState<string | null>(null);
  useEffect(() => () => recording.current?.cancel(), []);
  useEffect(() => () => (clip ? URL.revokeObjectURL(clip) : undefined), [clip]);

  const record = async () => {
    setState('starting');
    setNote('Asking for the microphone…');
    try {
      // The recorder is loaded only when asked for: the page's script stays within its budget.
      const { startRecording } = await import('~/components/inbox/audio-recorder');
      recording.current = await startRecording();
      setState('recording');
      setNote('Recording… press Stop when you are done.');
    } catch (err) {
      setState('idle');
      setNote(recordingFailure(err));
    }
  };
  const stop = async () => {
    const r = recording.current;
    recording.current = null;
    if (!r || !input.current) return;
    try {
      const file = await r.stop();
      setFiles(input.current, [file]);
      setClip(URL.createObjectURL(file));
      setState('recorded');
      setNote(`Recorded ${file.name}: it will be sent with the reply.`);
    } catch (err) {
      setState('idle');
      setNote(recordingFailure(err));
    }
  };
  const discard = () => {
    recording.current?.cancel();
    recording.current = null;
    if (input.current) input.current.value = '';
    setClip(null);
    setState('idle');
    setNote('Recording discarded.');
  };

  return (
    <div className="field">
      <label htmlFor="reply-audio">Audio clip</label>
      {js ? (
        <div className="media-tools">
          {state === 'recording' ? (
            <button type="button" className="btn" onClick={stop} data-testid="record-stop">
              <Square aria-hidden="true" size={16} /> Stop
            </button>
          ) : (
            <button type="button" className="btn" onClick={record} disabled={state === 'starting'} data-testid="record-start">
              <Mic aria-hidden="true" size={16} /> Record
            </button>
          )}
          {state === 'recording' || state === 'recorded' ? (
            <button type="button" className="btn" onClick={discard} data-testid="record-discard">
              <Trash2 aria-hidden="true" size={16} /> Discard
            </button>
          ) : null}
          {clip ? <audio controls src={clip} aria-label="Your recording" /> : null}
        </div>
      ) : null}
      <input
        ref={input}
        id="reply-audio"
        type="file"
        name="audio"
        accept={AUDIO_ACCEPT}
        aria-invalid={errors ? true : undefined}
        aria-describedby="reply-audio-hint"
        onChange={() => {
          setClip(null);
          setState('idle');
        }}
      />
      <small id="reply-audio-hint" className="muted">
        {hint}
      </small>
      {js ? (
        <p className="muted" role="status" data-testid="record-status">
          {note}
        </p>
      ) : null}
      <ErrorList errors={errors} />
    </div>
  );
}

function recordingFailure(err: unknown) {
  const name = err instanceof Error ? err.name : '';
  if (name === 'NotAllowedError' || name === 'SecurityError') return 'Microphone access was denied. Allow it in your browser’s site settings, or upload an audio file instead.';
  if (name === 'NotFoundError') return 'No microphone was found. Connect one, or upload an audio file instead.';
  if (name === 'NotSupportedError') return 'This browser cannot record audio. Upload an audio file instead.';
  return `Recording failed${err instanceof Error && err.message ? `: ${err.message}` : ''}. Upload an audio file instead.`;
}
