import { MaxPartSizeExceededError, unstable_createMemoryUploadHandler, unstable_parseMultipartFormData } from '@remix-run/node';
import { MAX_ATTACHMENT_BYTES, MAX_MESSAGE_ATTACHMENT_BYTES } from './attachments.server';
import { MAX_REPLY_FILES, REPLY_FILE_TOO_LARGE, REPLY_FILES_TOO_LARGE, REPLY_TOO_MANY_FILES, ReplyFileError, type ReplyFile } from './replies.server';

/**
 * A form that may carry files (a reply, an email template's attachments): multipart parts are read in memory with a
 * limit per part, on the number of files and on their total, so an oversized upload stops early with its message
 * (the string answered instead of the form). A form that is not multipart is read as it is.
 */
export async function readFormWithFiles(request: Request): Promise<FormData | string> {
  if (!(request.headers.get('content-type') ?? '').startsWith('multipart/form-data')) return request.formData();
  const memory = unstable_createMemoryUploadHandler({ maxPartSize: MAX_ATTACHMENT_BYTES });
  let files = 0;
  let total = 0;
  try {
    return await unstable_parseMultipartFormData(request, async (part) => {
      // A file field left empty sends a part with no name: it does not count.
      if (part.filename && ++files > MAX_REPLY_FILES) throw new ReplyFileError(REPLY_TOO_MANY_FILES);
      const value = await memory(part);
      total += typeof value === 'string' ? value.length : value?.size ?? 0;
      if (total > MAX_MESSAGE_ATTACHMENT_BYTES + 64 * 1024) throw new ReplyFileError(REPLY_FILES_TOO_LARGE);
      return value;
    });
  } catch (err) {
    if (err instanceof MaxPartSizeExceededError) return REPLY_FILE_TOO_LARGE;
    if (err instanceof ReplyFileError) return err.message;
    throw new Response('The upload could not be read', { status: 400 });
  }
}

/** The files chosen in a form's file field; a browser sends an empty part when none is. */
export async function filesOf(formData: FormData, name = 'files'): Promise<ReplyFile[]> {
  const files = formData.getAll(name).filter((f): f is File => typeof f !== 'string' && f.size > 0);
  return Promise.all(files.map(async (f) => ({ name: f.name, type: f.type, bytes: new Uint8Array(await f.arrayBuffer()) })));
}
