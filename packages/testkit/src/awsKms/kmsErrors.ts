/**
 * An error answer of the AWS KMS JSON 1.1 API: HTTP status, and a body `{ "__type": <name>, "message": … }` with the
 * same name in the `x-amzn-ErrorType` header, which the SDK turns into the exception class of that name. Types and
 * messages as AWS documents and answers them (API reference "Errors", "Common Errors").
 */
export class KmsError extends Error {
  override name = 'KmsError';
  constructor(
    readonly type: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }

  body(): { __type: string; message: string } {
    return { __type: this.type, message: this.message };
  }
}

export const KmsErrors = {
  missingToken: () => new KmsError('MissingAuthenticationTokenException', 'Missing Authentication Token', 400),
  incompleteSignature: (what: string) =>
    new KmsError('IncompleteSignatureException', `Authorization header requires ${what}.`, 400),
  unrecognizedClient: () =>
    new KmsError('UnrecognizedClientException', 'The security token included in the request is invalid.', 400),
  invalidSignature: () =>
    new KmsError(
      'InvalidSignatureException',
      'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.',
      400,
    ),
  badScope: (message: string) => new KmsError('InvalidSignatureException', message, 400),
  signatureExpired: (signed: string, now: string, edge: string) =>
    new KmsError(
      'InvalidSignatureException',
      `Signature expired: ${signed} is now earlier than ${edge} (${now} - 5 min.)`,
    ),
  signatureNotYetCurrent: (signed: string, now: string, edge: string) =>
    new KmsError(
      'InvalidSignatureException',
      `Signature not yet current: ${signed} is still later than ${edge} (${now} + 5 min.)`,
    ),
  accessDenied: (userArn: string, action: string, resource: string) =>
    new KmsError(
      'AccessDeniedException',
      `User: ${userArn} is not authorized to perform: kms:${action} on resource: ${resource} because no identity-based policy allows the kms:${action} action`,
    ),
  unknownOperation: () => new KmsError('UnknownOperationException', '', 400),
  serialization: (message: string) => new KmsError('SerializationException', message, 400),
  validation: (message: string) => new KmsError('ValidationException', message, 400),
  notFound: (message: string) => new KmsError('NotFoundException', message, 400),
  alreadyExists: (message: string) => new KmsError('AlreadyExistsException', message, 400),
  disabled: (arn: string) => new KmsError('DisabledException', `${arn} is disabled.`, 400),
  invalidState: (arn: string, state: string) =>
    new KmsError(
      'KMSInvalidStateException',
      `${arn} is ${state === 'PendingDeletion' ? 'pending deletion' : state}.`,
      400,
    ),
  invalidKeyUsage: (message: string) => new KmsError('InvalidKeyUsageException', message, 400),
  unsupported: (message: string) => new KmsError('UnsupportedOperationException', message, 400),
  invalidMarker: () =>
    new KmsError(
      'InvalidMarkerException',
      'The marker that specifies where pagination should next begin is not valid.',
      400,
    ),
  throttling: () => new KmsError('ThrottlingException', 'Rate exceeded', 400),
  internal: (status = 500) =>
    status === 503
      ? new KmsError('ServiceUnavailableException', 'Service Unavailable', 503)
      : new KmsError('KMSInternalException', 'An internal error has occurred. Try your request again.', status),
  bodyTooLarge: () => new KmsError('SerializationException', 'Request entity too large', 413),
};
