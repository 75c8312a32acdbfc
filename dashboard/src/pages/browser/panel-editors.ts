/** The File, ACL and Pointer editors: one chunk, read when a first cell of those types is edited. */
export { AclEditor } from './AclEditor.tsx';
export { FileEditor } from './FileEditor.tsx';
export { PointerPicker } from './PointerPicker.tsx';
