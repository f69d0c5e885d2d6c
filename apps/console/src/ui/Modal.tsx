import type { ReactNode } from 'react';
import { Modal as AriaModal, Dialog, Heading, ModalOverlay } from 'react-aria-components';

/**
 * A modal dialog (react-aria-components): focus moves in and is kept there, Escape and a click outside close it,
 * and focus returns to what opened it.
 */
export function Modal({
  title,
  isOpen,
  onClose,
  children,
}: {
  title: string;
  isOpen: boolean;
  onClose: () => void;
  children: ReactNode;
}) {
  return (
    <ModalOverlay className="modal-overlay" isOpen={isOpen} isDismissable onOpenChange={(open) => !open && onClose()}>
      <AriaModal className="modal">
        <Dialog>
          <Heading slot="title">{title}</Heading>
          {children}
        </Dialog>
      </AriaModal>
    </ModalOverlay>
  );
}
