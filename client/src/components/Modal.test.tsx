import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { Modal } from './Modal';

function Harness({ onClose = vi.fn() }: { onClose?: () => void }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button onClick={() => setOpen(true)}>Open</button>
      <Modal
        open={open}
        title="Pick one"
        description="Choose wisely."
        onClose={() => {
          onClose();
          setOpen(false);
        }}
      >
        <button>First</button>
        <button>Second</button>
      </Modal>
    </>
  );
}

async function openModal(onClose = vi.fn()) {
  const user = userEvent.setup();
  render(<Harness onClose={onClose} />);
  await user.click(screen.getByRole('button', { name: 'Open' }));
  return { user, onClose };
}

describe('Modal', () => {
  it('is a labelled, described modal dialog with focus on its first control', async () => {
    await openModal();
    const dialog = screen.getByRole('dialog', { name: 'Pick one' });
    expect(dialog).toHaveAttribute('aria-modal', 'true');
    expect(dialog).toHaveAccessibleDescription('Choose wisely.');
    expect(screen.getByRole('button', { name: 'First' })).toHaveFocus();
  });

  it('keeps Tab and Shift+Tab inside the dialog', async () => {
    const { user } = await openModal();
    await user.tab();
    expect(screen.getByRole('button', { name: 'Second' })).toHaveFocus();
    await user.tab();
    expect(screen.getByRole('button', { name: 'Close' })).toHaveFocus();
    await user.tab({ shift: true });
    expect(screen.getByRole('button', { name: 'Second' })).toHaveFocus();
    screen.getByRole('button', { name: 'Close' }).focus();
    await user.tab({ shift: true });
    expect(screen.getByRole('button', { name: 'Second' })).toHaveFocus();
  });

  it('pulls focus back in if something outside gets it', async () => {
    await openModal();
    screen.getByRole('button', { name: 'Open', hidden: true }).focus();
    expect(screen.getByRole('dialog')).toContainElement(document.activeElement as HTMLElement);
  });

  it('closes on Escape and on the close button, returning focus to the opener', async () => {
    const { user, onClose } = await openModal();
    await user.keyboard('{Escape}');
    expect(onClose).toHaveBeenCalledTimes(1);
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Open' })).toHaveFocus();
    await user.click(screen.getByRole('button', { name: 'Open' }));
    await user.click(screen.getByRole('button', { name: 'Close' }));
    expect(onClose).toHaveBeenCalledTimes(2);
  });

  it('makes the page behind inert and gives it back when it closes', async () => {
    const { user } = await openModal();
    const page = document.body.firstElementChild as HTMLElement;
    expect(page.inert).toBe(true);
    await user.keyboard('{Escape}');
    expect(page.inert).toBe(false);
  });
});
