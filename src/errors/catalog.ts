/**
 * The one catalog of error codes Basalt returns. Codes are Parse's numeric codes so existing
 * SDKs map them to their own error constants; statuses follow docs/errors.md (spec/decisions.md).
 */
export interface ErrorDefinition {
  readonly code: number;
  readonly name: string;
  readonly status: number;
  readonly message: string;
}

function def(code: number, name: string, status: number, message: string): ErrorDefinition {
  return Object.freeze({ code, name, status, message });
}

export const CATALOG = {
  internalServerError: def(1, 'INTERNAL_SERVER_ERROR', 500, 'Internal server error.'),
  connectionFailed: def(100, 'CONNECTION_FAILED', 503, 'The database is unavailable.'),
  objectNotFound: def(101, 'OBJECT_NOT_FOUND', 404, 'Object not found.'),
  invalidQuery: def(102, 'INVALID_QUERY', 400, 'Invalid query.'),
  invalidClassName: def(103, 'INVALID_CLASS_NAME', 400, 'Invalid class name.'),
  missingObjectId: def(104, 'MISSING_OBJECT_ID', 400, 'An objectId is required.'),
  invalidKeyName: def(105, 'INVALID_KEY_NAME', 400, 'Invalid field name.'),
  invalidPointer: def(106, 'INVALID_POINTER', 400, 'Malformed pointer.'),
  invalidJson: def(107, 'INVALID_JSON', 400, 'Invalid JSON.'),
  commandUnavailable: def(108, 'COMMAND_UNAVAILABLE', 400, 'This feature is not available.'),
  incorrectType: def(111, 'INCORRECT_TYPE', 400, 'Incorrect type.'),
  invalidChannelName: def(112, 'INVALID_CHANNEL_NAME', 400, 'Invalid channel name.'),
  pushMisconfigured: def(115, 'PUSH_MISCONFIGURED', 400, 'Push is not configured for this app.'),
  objectTooLarge: def(116, 'OBJECT_TOO_LARGE', 413, 'The object is too large.'),
  invalidLimit: def(117, 'INVALID_LIMIT', 400, 'Invalid limit.'),
  invalidSkip: def(118, 'INVALID_SKIP', 400, 'Invalid skip.'),
  operationForbidden: def(119, 'OPERATION_FORBIDDEN', 403, 'This operation is not allowed.'),
  invalidNestedKey: def(121, 'INVALID_NESTED_KEY', 400, 'Keys in nested objects must not contain "$" or ".".'),
  invalidFileName: def(122, 'INVALID_FILE_NAME', 400, 'Invalid file name.'),
  invalidAcl: def(123, 'INVALID_ACL', 400, 'Invalid ACL.'),
  timeout: def(124, 'TIMEOUT', 400, 'The request timed out.'),
  invalidEmailAddress: def(125, 'INVALID_EMAIL_ADDRESS', 400, 'Invalid email address.'),
  missingContentType: def(126, 'MISSING_CONTENT_TYPE', 400, 'A content type is required.'),
  missingContentLength: def(127, 'MISSING_CONTENT_LENGTH', 400, 'A content length is required.'),
  invalidContentLength: def(128, 'INVALID_CONTENT_LENGTH', 400, 'Invalid content length.'),
  invalidInstallationId: def(132, 'INVALID_INSTALLATION_ID', 400, 'Invalid installation id.'),
  invalidDeviceType: def(133, 'INVALID_DEVICE_TYPE', 400, 'Invalid device type.'),
  missingRequiredField: def(135, 'MISSING_REQUIRED_FIELD', 400, 'A required field is missing.'),
  changedImmutableField: def(136, 'CHANGED_IMMUTABLE_FIELD', 400, 'This field cannot be changed.'),
  fileTooLarge: def(129, 'FILE_TOO_LARGE', 413, 'The file is too large.'),
  fileSaveError: def(130, 'FILE_SAVE_ERROR', 400, 'The file could not be saved.'),
  duplicateValue: def(137, 'DUPLICATE_VALUE', 400, 'A unique field was given a value that is already taken.'),
  invalidRoleName: def(139, 'INVALID_ROLE_NAME', 400, 'Invalid role name.'),
  exceededQuota: def(140, 'EXCEEDED_QUOTA', 400, 'Quota exceeded.'),
  scriptFailed: def(141, 'SCRIPT_FAILED', 400, 'Cloud code or a webhook failed, or no such function.'),
  validationError: def(142, 'VALIDATION_ERROR', 400, 'Validation failed.'),
  webhookError: def(143, 'WEBHOOK_ERROR', 400, 'Invalid hook definition, or no such hook.'),
  invalidImageData: def(150, 'INVALID_IMAGE_DATA', 400, 'Invalid image data.'),
  unsavedFile: def(151, 'UNSAVED_FILE', 400, 'The file has not been saved.'),
  invalidPushTime: def(152, 'INVALID_PUSH_TIME_ERROR', 400, 'Invalid push time.'),
  fileDeleteError: def(153, 'FILE_DELETE_ERROR', 400, 'The file could not be deleted.'),
  requestLimitExceeded: def(155, 'REQUEST_LIMIT_EXCEEDED', 429, 'Too many requests.'),
  duplicateRequest: def(159, 'DUPLICATE_REQUEST', 400, 'A request with this id is still in progress.'),
  invalidEventName: def(160, 'INVALID_EVENT_NAME', 400, 'Invalid event name.'),
  invalidValue: def(162, 'INVALID_VALUE', 400, 'Invalid value.'),
  usernameMissing: def(200, 'USERNAME_MISSING', 400, 'A username is required.'),
  passwordMissing: def(201, 'PASSWORD_MISSING', 400, 'A password is required.'),
  usernameTaken: def(202, 'USERNAME_TAKEN', 400, 'This username is already taken.'),
  emailTaken: def(203, 'EMAIL_TAKEN', 400, 'This email address is already taken.'),
  emailMissing: def(204, 'EMAIL_MISSING', 400, 'An email address is required.'),
  emailNotFound: def(205, 'EMAIL_NOT_FOUND', 400, 'No user has this email address.'),
  sessionMissing: def(206, 'SESSION_MISSING', 400, 'A session is required.'),
  mustCreateUserThroughSignup: def(207, 'MUST_CREATE_USER_THROUGH_SIGNUP', 400, 'Users must be created through sign-up.'),
  accountAlreadyLinked: def(208, 'ACCOUNT_ALREADY_LINKED', 400, 'This account is already linked to another user.'),
  invalidSessionToken: def(209, 'INVALID_SESSION_TOKEN', 400, 'Invalid session token.'),
  linkedIdMissing: def(250, 'LINKED_ID_MISSING', 400, 'The linked account id is missing.'),
  invalidLinkedSession: def(251, 'INVALID_LINKED_SESSION', 400, 'Invalid linked session.'),
  unsupportedService: def(252, 'UNSUPPORTED_SERVICE', 400, 'Unsupported authentication service.'),
  classNotEmpty: def(255, 'CLASS_NOT_EMPTY', 400, 'The class is not empty.'),
  missingApplicationId: def(902, 'MISSING_APPLICATION_ID', 401, 'An application id is required.'),
  unauthorized: def(903, 'UNAUTHORIZED', 401, 'Unauthorized: no valid key for this application.'),
} as const satisfies Record<string, ErrorDefinition>;

export type ErrorKey = keyof typeof CATALOG;

export function definitions(): ErrorDefinition[] {
  return Object.values(CATALOG).sort((a, b) => a.code - b.code);
}
