// Uploads of files to the API's import routes (collections, topics, runs, qrels): a
// multipart form sent with XMLHttpRequest, whose upload events give the progress bar.
import { ApiError, getToken } from './api';

/** How far an upload has come: bytes sent of the total, or the step it is at. */
export interface UploadProgress {
  step: 'decompressing' | 'sending' | 'storing';
  sent: number;
  total: number;
}

/**
 * The file as the server reads it: a `.gz` file is decompressed here in the browser
 * (the server reads plain text), keeping its name without `.gz` for `file:line` messages.
 */
export async function plainFile(file: File): Promise<File> {
  if (!/\.gz$/i.test(file.name)) return file;
  const name = file.name.replace(/\.gz$/i, '');
  try {
    const blob = await new Response(
      file.stream().pipeThrough(new DecompressionStream('gzip')),
    ).blob();
    return new File([blob], name, { type: 'text/plain' });
  } catch {
    throw new ApiError('invalid_input', `${file.name} is not a gzip file`, 0);
  }
}

/**
 * Sends `file` (none: an empty file) with `fields` as multipart/form-data to `/api{path}`
 * and returns the parsed answer; a refusal is an ApiError carrying the server's message.
 */
export async function upload<T>(
  path: string,
  file: File | null,
  fields: Record<string, string>,
  onProgress: (progress: UploadProgress) => void = () => {},
): Promise<T> {
  let plain: File;
  if (file === null) plain = new File([], 'empty', { type: 'text/plain' });
  else {
    if (/\.gz$/i.test(file.name)) onProgress({ step: 'decompressing', sent: 0, total: file.size });
    plain = await plainFile(file);
  }
  const form = new FormData();
  for (const [key, value] of Object.entries(fields)) if (value !== '') form.append(key, value);
  form.append('file', plain, plain.name);
  return new Promise<T>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `/api${path}`);
    const token = getToken();
    if (token) xhr.setRequestHeader('authorization', `Bearer ${token}`);
    xhr.upload.onprogress = (event) =>
      onProgress({ step: 'sending', sent: event.loaded, total: event.total || plain.size });
    xhr.upload.onload = () => onProgress({ step: 'storing', sent: plain.size, total: plain.size });
    xhr.onerror = () => reject(new ApiError('network', 'the server cannot be reached', 0));
    xhr.onload = () => {
      let parsed: unknown;
      try {
        parsed = xhr.responseText ? JSON.parse(xhr.responseText) : undefined;
      } catch {
        reject(new ApiError('internal', `unexpected answer (${xhr.status})`, xhr.status));
        return;
      }
      if (xhr.status >= 200 && xhr.status < 300) resolve(parsed as T);
      else {
        const error = (parsed as { error?: { code: string; message: string } } | undefined)?.error;
        reject(
          new ApiError(
            error?.code ?? 'internal',
            error?.message ?? `HTTP ${xhr.status}`,
            xhr.status,
          ),
        );
      }
    };
    xhr.send(form);
  });
}
