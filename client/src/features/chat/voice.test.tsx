import { act, renderHook, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { useSpeechRecognition } from './hooks/useSpeechRecognition';
import { stringsFor } from './i18n';
import { FakeSpeechRecognition } from './testing/fake-speech';
import { renderChat, serverSays } from './testing/render-chat';

type SpeechWindow = { SpeechRecognition?: unknown; webkitSpeechRecognition?: unknown };
const speechWindow = window as unknown as SpeechWindow;

const input = () => screen.getByRole('textbox', { name: 'Your message' });
const mic = () => screen.getByRole('button', { name: 'Start voice input' });
let alertSpy: ReturnType<typeof vi.spyOn>;

beforeEach(() => {
  FakeSpeechRecognition.reset();
  speechWindow.webkitSpeechRecognition = FakeSpeechRecognition;
  alertSpy = vi.spyOn(window, 'alert').mockImplementation(() => undefined);
});

afterEach(() => {
  delete speechWindow.webkitSpeechRecognition;
  delete speechWindow.SpeechRecognition;
  vi.restoreAllMocks();
});

describe('voice input', () => {
  it('shows the microphone button where webkitSpeechRecognition exists', () => {
    renderChat();
    expect(mic()).toBeInTheDocument();
  });

  it('uses the unprefixed SpeechRecognition too', () => {
    delete speechWindow.webkitSpeechRecognition;
    speechWindow.SpeechRecognition = FakeSpeechRecognition;
    renderChat();
    expect(mic()).toBeInTheDocument();
  });

  it('listens for a single utterance with interim results, one alternative and the default en-US locale', async () => {
    const { user } = renderChat();
    await user.click(mic());
    const recognition = FakeSpeechRecognition.latest();
    expect(recognition.started).toBe(true);
    expect(recognition.continuous).toBe(false);
    expect(recognition.interimResults).toBe(true);
    expect(recognition.maxAlternatives).toBe(1);
    expect(recognition.lang).toBe('en-US');
  });

  it("uses the chosen language's speech locale", async () => {
    const { user } = renderChat();
    await user.selectOptions(screen.getByRole('combobox', { name: 'Language' }), 'ja');
    await user.click(screen.getByRole('button', { name: stringsFor('ja').voice.start }));
    expect(FakeSpeechRecognition.latest().lang).toBe('ja-JP');
  });

  it("shows the red 'Recording... Speak now in {language}' banner and disables the input while listening", async () => {
    const { user } = renderChat();
    await user.click(mic());
    const banner = screen.getByText('Recording... Speak now in English');
    expect(banner).toHaveClass('recording-banner');
    expect(banner).toHaveAttribute('role', 'status');
    expect(input()).toBeDisabled();
    const listening = screen.getByRole('button', { name: 'Stop voice input' });
    expect(listening).toHaveAttribute('aria-pressed', 'true');
    expect(listening).toHaveClass('is-listening');
  });

  it('says the recording banner in the chosen language (French interface: in French)', async () => {
    const { user } = renderChat();
    await user.selectOptions(screen.getByRole('combobox', { name: 'Language' }), 'fr');
    await user.click(screen.getByRole('button', { name: stringsFor('fr').voice.start }));
    expect(screen.getByText(stringsFor('fr').voice.recording(stringsFor('fr').selfName))).toHaveClass('recording-banner');
  });

  it('shows interim text as a hint overlay, then appends the final text to what was typed, with a space', async () => {
    const { user } = renderChat();
    await user.type(input(), 'My order');
    await user.click(mic());
    const recognition = FakeSpeechRecognition.latest();
    act(() => recognition.result([{ transcript: 'has not', isFinal: false }]));
    expect(screen.getByTestId('interim-hint')).toHaveTextContent('has not');
    expect(input()).toHaveValue('My order');
    act(() => recognition.result([{ transcript: 'has not arrived', isFinal: true }]));
    expect(input()).toHaveValue('My order has not arrived');
    expect(screen.queryByTestId('interim-hint')).not.toBeInTheDocument();
    act(() => recognition.end());
    expect(screen.queryByText(/Recording\.\.\./)).not.toBeInTheDocument();
    expect(input()).toBeEnabled();
    expect(input()).toHaveValue('My order has not arrived');
  });

  it('puts the final text into an empty input without a leading space', async () => {
    const { user } = renderChat();
    await user.click(mic());
    act(() => FakeSpeechRecognition.latest().result([{ transcript: 'Where is my parcel', isFinal: true }]));
    expect(input()).toHaveValue('Where is my parcel');
  });

  it('a second press stops listening', async () => {
    const { user } = renderChat();
    await user.click(mic());
    const recognition = FakeSpeechRecognition.latest();
    await user.click(screen.getByRole('button', { name: 'Stop voice input' }));
    expect(recognition.stopCalls).toBe(1);
    expect(screen.queryByText(/Recording\.\.\./)).not.toBeInTheDocument();
    expect(mic()).toBeInTheDocument();
  });

  it('the microphone still works while offline (the text waits in the box like typed text)', () => {
    const { socket } = renderChat();
    serverSays(() => socket.health('unhealthy'));
    expect(mic()).toBeEnabled();
  });

  it.each([
    ['not-allowed', 'Microphone access denied. Please allow microphone access to use voice input.'],
    ['service-not-allowed', 'Microphone access denied.'],
    ['network', 'Network error. Please check your connection.'],
    ['no-speech', 'No speech detected. Please try again.'],
    ['audio-capture', 'No microphone found.'],
    ['aborted', 'Voice recognition error: aborted'],
    ['language-not-supported', 'Voice recognition error: language-not-supported'],
  ])('shows the %s error in the page, word for word: %s', async (code, message) => {
    const { user } = renderChat();
    await user.click(mic());
    act(() => FakeSpeechRecognition.latest().error(code));
    expect(screen.getByRole('alert')).toHaveTextContent(message);
    expect(alertSpy).not.toHaveBeenCalled();
    expect(screen.queryByText(/Recording\.\.\./)).not.toBeInTheDocument();
    expect(input()).toBeEnabled();
    await user.click(within(screen.getByRole('alert')).getByRole('button', { name: 'Dismiss' }));
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it("shows 'Failed to start voice recognition' in the page when the recogniser will not start", async () => {
    const { user } = renderChat();
    FakeSpeechRecognition.failNextStart = true;
    await user.click(mic());
    expect(screen.getByRole('alert')).toHaveTextContent('Failed to start voice recognition');
    expect(alertSpy).not.toHaveBeenCalled();
    expect(screen.queryByText(/Recording\.\.\./)).not.toBeInTheDocument();
    expect(mic()).toBeInTheDocument();
  });

  it("alerts 'Voice input is not supported in your browser' when asked to listen without a recogniser", () => {
    delete speechWindow.webkitSpeechRecognition;
    const { result } = renderHook(() => useSpeechRecognition({ locale: 'en-US', onFinal: () => undefined }));
    expect(result.current.supported).toBe(false);
    act(() => result.current.start());
    expect(alertSpy).toHaveBeenCalledWith('Voice input is not supported in your browser');
  });

  it('aborts a running recognition when the page goes away', async () => {
    const { user, unmount } = renderChat();
    await user.click(mic());
    const recognition = FakeSpeechRecognition.latest();
    unmount();
    expect(recognition.abortCalls).toBe(1);
    expect(alertSpy).not.toHaveBeenCalled();
  });
});
