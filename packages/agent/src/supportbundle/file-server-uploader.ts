// Picks the upload by the fileServer URL's scheme: sftp:// (and, as Antrea accepts, a URL without
// a scheme) over SFTP; http(s):// by PUT, our extension.
import type { Logger } from 'pino';
import { AgentError } from '../errors.js';
import {
  type BundleFileServer,
  type BundleServerAuth,
  type BundleUploader,
  HttpBundleUploader,
} from './bundle-uploader.js';
import { SftpBundleUploader } from './sftp-uploader.js';

export interface FileServerUploaders {
  readonly sftp: BundleUploader;
  readonly http: BundleUploader;
}

export class FileServerBundleUploader implements BundleUploader {
  private readonly by: FileServerUploaders;

  constructor(logger?: Logger, uploaders?: Partial<FileServerUploaders>) {
    this.by = {
      sftp: uploaders?.sftp ?? new SftpBundleUploader(logger ? { logger } : {}),
      http: uploaders?.http ?? new HttpBundleUploader(),
    };
  }

  upload(
    fileServer: BundleFileServer,
    auth: BundleServerAuth,
    fileName: string,
    archive: Buffer,
  ): Promise<void> {
    const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(fileServer.url)?.[1]?.toLowerCase();
    if (scheme === undefined || scheme === 'sftp')
      return this.by.sftp.upload(fileServer, auth, fileName, archive);
    if (scheme === 'http' || scheme === 'https')
      return this.by.http.upload(fileServer, auth, fileName, archive);
    return Promise.reject(
      new AgentError(
        'AGENT_BUNDLE_UPLOAD_FAILED',
        `unsupported file server URL scheme ${scheme}: use sftp:// (or http(s):// for an HTTP PUT upload)`,
      ),
    );
  }
}
