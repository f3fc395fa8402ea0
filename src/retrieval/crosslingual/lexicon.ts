/**
 * A compact bilingual lexicon: common words of software and customer support, in English and the
 * ten other languages the assistant offers. Written for this project from general vocabulary
 * (not from any knowledge base or evaluation question); it lets a question in another language
 * meet English knowledge offline (see translate.ts).
 *
 * One concept a line: English words (the first is the main one; the others are searched too),
 * then per language its words or phrases, comma-separated, in the column order of LANGUAGES.
 * A dash: no entry. Forms are dictionary forms; each language's matching (translate.ts) folds
 * case and diacritics and stems or strips particles on both sides, so plurals and conjugated
 * forms meet their entry.
 */

/** Column order of LEXICON after the English column. */
export const LEXICON_LANGUAGES = ['es', 'fr', 'de', 'it', 'pt', 'ar', 'hi', 'ko', 'zh', 'ja'] as const;

export const LEXICON = `
file | archivo, fichero | fichier | datei | file, archivio | arquivo, ficheiro | ملف, ملفات | फ़ाइल, फाइल | 파일 | 文件, 档案 | ファイル
folder directory | carpeta, directorio | dossier, répertoire | ordner, verzeichnis | cartella, directory | pasta, diretório | مجلد, دليل | फ़ोल्डर, निर्देशिका | 폴더, 디렉터리, 디렉토리 | 文件夹, 目录 | フォルダ, フォルダー, ディレクトリ
program | programa | programme | programm | programma | programa | برنامج | प्रोग्राम, कार्यक्रम | 프로그램 | 程序 | プログラム
application app | aplicación | application | anwendung, app | applicazione | aplicativo, aplicação | تطبيق | एप्लिकेशन, ऐप | 애플리케이션, 앱 | 应用, 应用程序 | アプリ, アプリケーション
software | software | logiciel | software | software | software | برمجيات | सॉफ़्टवेयर, सॉफ्टवेयर | 소프트웨어 | 软件 | ソフトウェア
code source | código | code | code, quellcode | codice | código | كود, شيفرة, رمز | कोड | 코드, 소스 | 代码, 源代码 | コード, ソース
script | script, guion | script | skript | script | script | سكريبت, نص برمجي | स्क्रिप्ट | 스크립트 | 脚本 | スクリプト
function | función | fonction | funktion | funzione | função | دالة, وظيفة | फ़ंक्शन, फंक्शन | 함수 | 函数 | 関数
method | método | méthode | methode | metodo | método | طريقة, أسلوب | मेथड, विधि | 메서드, 메소드 | 方法 | メソッド
class | clase | classe | klasse | classe | classe | فئة, صنف, كلاس | क्लास | 클래스 | 类 | クラス
object | objeto | objet | objekt | oggetto | objeto | كائن | ऑब्जेक्ट | 객체, 오브젝트 | 对象 | オブジェクト
instance | instancia | instance | instanz | istanza | instância | نسخة, مثيل | इंस्टेंस | 인스턴스 | 实例 | インスタンス
module | módulo | module | modul | modulo | módulo | وحدة | मॉड्यूल | 모듈 | 模块 | モジュール
package | paquete | paquet | paket | pacchetto | pacote | حزمة | पैकेज | 패키지 | 包, 软件包 | パッケージ
library | biblioteca, librería | bibliothèque | bibliothek | libreria | biblioteca | مكتبة | लाइब्रेरी | 라이브러리 | 库 | ライブラリ
variable | variable | variable | variable | variabile | variável | متغير | वेरिएबल, चर | 변수 | 变量 | 変数
value | valor | valeur | wert | valore | valor | قيمة | मान, वैल्यू | 값 | 值 | 値
type | tipo | type | typ | tipo | tipo | نوع | प्रकार, टाइप | 타입, 유형, 형식 | 类型 | 型, タイプ
list | lista | liste | liste | lista | lista | قائمة | सूची, लिस्ट | 리스트, 목록 | 列表 | リスト, 一覧
array | arreglo, array | tableau | array, feld | array, vettore | array, vetor | مصفوفة | ऐरे | 배열 | 数组 | 配列
string text | cadena, texto | chaîne, texte | zeichenkette, string, text | stringa, testo | string, cadeia, texto | سلسلة, نص | स्ट्रिंग, टेक्स्ट, पाठ | 문자열, 텍스트 | 字符串, 文本 | 文字列, テキスト
number | número | nombre, numéro | zahl, nummer | numero | número | رقم, عدد | संख्या, नंबर | 숫자, 수 | 数字, 数 | 数, 数値, 番号
integer | entero | entier | ganzzahl | intero | inteiro | عدد صحيح | पूर्णांक | 정수 | 整数 | 整数
float decimal | flotante, decimal | flottant, décimal | gleitkommazahl, dezimal | virgola mobile, decimale | ponto flutuante, decimal | عشري | दशमलव, फ्लोट | 부동소수점, 소수 | 浮点, 浮点数, 小数 | 浮動小数点, 小数
dictionary | diccionario | dictionnaire | wörterbuch | dizionario | dicionário | قاموس | डिक्शनरी, शब्दकोश | 딕셔너리, 사전 | 字典 | 辞書
key | clave, llave | clé | schlüssel | chiave | chave | مفتاح | कुंजी, की | 키 | 键, 密钥 | キー, 鍵
loop | bucle, ciclo | boucle | schleife | ciclo | laço, loop | حلقة | लूप | 루프, 반복문 | 循环 | ループ
error | error | erreur | fehler | errore | erro | خطأ, أخطاء | त्रुटि, एरर, गलती | 오류, 에러 | 错误 | エラー
exception | excepción | exception | ausnahme | eccezione | exceção | استثناء | अपवाद, एक्सेप्शन | 예외 | 异常, 例外 | 例外
warning | advertencia, aviso | avertissement | warnung | avviso | aviso | تحذير | चेतावनी | 경고 | 警告 | 警告
bug | fallo, bug | bogue, bug | fehler, bug | bug | bug, falha | علة, خلل | बग | 버그 | 漏洞, 缺陷, 错误 | バグ
problem issue | problema | problème | problem | problema | problema | مشكلة | समस्या | 문제 | 问题 | 問題
message | mensaje | message | nachricht, meldung | messaggio | mensagem | رسالة | संदेश | 메시지 | 消息, 信息 | メッセージ
log | registro | journal | protokoll | registro | registro, log | سجل | लॉग | 로그 | 日志 | ログ
output | salida | sortie | ausgabe | output, uscita | saída | مخرجات, إخراج | आउटपुट | 출력 | 输出 | 出力
input | entrada | entrée | eingabe | input, ingresso | entrada | مدخلات, إدخال | इनपुट | 입력 | 输入 | 入力
result | resultado | résultat | ergebnis | risultato | resultado | نتيجة | परिणाम | 결과 | 结果 | 結果
data | datos | données | daten | dati | dados | بيانات | डेटा | 데이터 | 数据 | データ
database | base de datos | base de données | datenbank | database | banco de dados | قاعدة بيانات | डेटाबेस | 데이터베이스 | 数据库 | データベース
table | tabla | table, tableau | tabelle | tabella | tabela | جدول | तालिका, टेबल | 테이블, 표 | 表, 表格 | テーブル, 表
line | línea | ligne | zeile | riga, linea | linha | سطر | पंक्ति, लाइन | 줄, 라인, 행 | 行 | 行
column | columna | colonne | spalte | colonna | coluna | عمود | कॉलम, स्तंभ | 열, 컬럼 | 列 | 列
character | carácter | caractère | zeichen | carattere | caractere | حرف, محرف | अक्षर, कैरेक्टर | 문자 | 字符 | 文字
server | servidor | serveur | server | server | servidor | خادم | सर्वर | 서버 | 服务器 | サーバー, サーバ
client | cliente | client | client | client | cliente | عميل | क्लाइंट | 클라이언트 | 客户端 | クライアント
network | red | réseau | netzwerk | rete | rede | شبكة | नेटवर्क | 네트워크 | 网络 | ネットワーク
connection connect | conexión, conectar | connexion, connecter | verbindung, verbinden | connessione, connettere | conexão, conectar | اتصال, الاتصال | कनेक्शन, जोड़ना | 연결 | 连接 | 接続
internet web | internet, web | internet, web | internet, web | internet, web | internet, web | إنترنت, ويب | इंटरनेट, वेब | 인터넷, 웹 | 互联网, 网络, 网页 | インターネット, ウェブ
website page site | sitio, página | site, page | webseite, seite | sito, pagina | site, página | موقع, صفحة | वेबसाइट, पेज, पृष्ठ | 웹사이트, 사이트, 페이지 | 网站, 页面 | サイト, ページ
browser | navegador | navigateur | browser | browser | navegador | متصفح | ब्राउज़र | 브라우저 | 浏览器 | ブラウザ
email mail | correo, email, correo electrónico | courriel, e-mail, mail | e-mail, email, mail | email, posta | e-mail, email, correio | بريد, بريد إلكتروني | ईमेल | 이메일, 메일 | 邮件, 电子邮件 | メール, 電子メール
account | cuenta | compte | konto | account | conta | حساب | खाता, अकाउंट | 계정 | 账户, 帐户, 账号 | アカウント
user | usuario | utilisateur | benutzer, nutzer | utente | usuário, utilizador | مستخدم | उपयोगकर्ता, यूज़र | 사용자 | 用户 | ユーザー, ユーザ
password | contraseña, clave | mot de passe | passwort, kennwort | password | senha | كلمة المرور, كلمة السر | पासवर्ड | 비밀번호, 암호, 패스워드 | 密码 | パスワード
username | nombre de usuario | nom d'utilisateur | benutzername | nome utente | nome de usuário | اسم المستخدم | यूज़रनेम | 사용자 이름 | 用户名 | ユーザー名
name | nombre | nom | name | nome | nome | اسم | नाम | 이름 | 名字, 名称 | 名前
setting configuration config | configuración, ajuste | configuration, paramètre, réglage | einstellung, konfiguration | impostazione, configurazione | configuração | إعداد, إعدادات, تكوين | सेटिंग, कॉन्फ़िगरेशन | 설정, 구성 | 设置, 配置 | 設定
option | opción | option | option | opzione | opção | خيار | विकल्प | 옵션 | 选项 | オプション
permission | permiso | permission, autorisation | berechtigung, erlaubnis | permesso | permissão | إذن, صلاحية | अनुमति | 권한 | 权限 | 権限
security secure | seguridad, seguro | sécurité | sicherheit, sicher | sicurezza, sicuro | segurança, seguro | أمان, أمن | सुरक्षा, सुरक्षित | 보안 | 安全 | セキュリティ, 安全
certificate | certificado | certificat | zertifikat | certificato | certificado | شهادة | प्रमाणपत्र | 인증서 | 证书 | 証明書
token | token | jeton | token | token | token | رمز مميز, توكن | टोकन | 토큰 | 令牌 | トークン
credential | credencial | identifiant | zugangsdaten | credenziali | credencial | بيانات الاعتماد | क्रेडेंशियल | 자격 증명 | 凭据 | 認証情報
login | iniciar sesión, acceso | connexion, se connecter | anmelden, anmeldung | accesso, accedere | login, entrar | تسجيل الدخول | लॉगिन | 로그인 | 登录 | ログイン
memory | memoria | mémoire | speicher, arbeitsspeicher | memoria | memória | ذاكرة | मेमोरी, स्मृति | 메모리 | 内存 | メモリ, メモリー
disk storage | disco, almacenamiento | disque, stockage | festplatte, speicher | disco, archiviazione | disco, armazenamento | قرص, تخزين | डिस्क, स्टोरेज | 디스크, 저장소 | 磁盘, 存储 | ディスク, ストレージ
size | tamaño | taille | größe | dimensione | tamanho | حجم | आकार | 크기 | 大小 | サイズ
space | espacio | espace | leerzeichen, platz | spazio | espaço | مسافة, مساحة | स्पेस, जगह | 공백, 공간 | 空格, 空间 | スペース, 空白
encoding | codificación | encodage, codage | kodierung | codifica | codificação | ترميز | एन्कोडिंग | 인코딩 | 编码 | エンコーディング, 文字コード
comment | comentario | commentaire | kommentar | commento | comentário | تعليق | टिप्पणी | 주석 | 注释 | コメント
documentation | documentación | documentation | dokumentation | documentazione | documentação | توثيق | दस्तावेज़ीकरण, डॉक्यूमेंटेशन | 문서 | 文档 | ドキュメント
example | ejemplo | exemple | beispiel | esempio | exemplo | مثال | उदाहरण | 예제, 예시 | 例子, 示例 | 例
version | versión | version | version | versione | versão | إصدار, نسخة | संस्करण, वर्ज़न | 버전 | 版本 | バージョン
release | lanzamiento, versión | publication, version | veröffentlichung, release | rilascio | lançamento | إصدار | रिलीज़ | 릴리스 | 发布, 发行 | リリース
history | historial, historia | historique | verlauf, geschichte | cronologia, storia | histórico | سجل, تاريخ | इतिहास | 기록, 이력 | 历史 | 履歴
change modify | cambiar, cambio, modificar | changer, modifier, modification | ändern, änderung | cambiare, modificare, modifica | mudar, alterar, modificar | تغيير, تعديل | बदलना, बदलाव, परिवर्तन | 변경, 바꾸 | 更改, 修改, 改变 | 変更, 変える
difference | diferencia | différence | unterschied | differenza | diferença | فرق | अंतर | 차이 | 区别, 差异 | 違い, 差分
repository | repositorio | dépôt | repository, repo | repository | repositório | مستودع | रिपॉजिटरी | 저장소 | 仓库, 存储库 | リポジトリ
branch | rama | branche | zweig, branch | ramo, branch | ramo, branch | فرع | ब्रांच, शाखा | 브랜치, 분기 | 分支 | ブランチ
commit | commit, confirmación | commit | commit | commit | commit | إيداع | कमिट | 커밋 | 提交 | コミット
merge | fusionar, fusión | fusionner, fusion | zusammenführen, mergen | unire, unione | mesclar, mesclagem | دمج | मर्ज | 병합 | 合并 | マージ, 統合
conflict | conflicto | conflit | konflikt | conflitto | conflito | تعارض | टकराव | 충돌 | 冲突 | 競合, 衝突
remote | remoto | distant | entfernt | remoto | remoto | بعيد | रिमोट | 원격 | 远程 | リモート
editor | editor | éditeur | editor | editor | editor | محرر | एडिटर, संपादक | 편집기, 에디터 | 编辑器 | エディタ, エディター
terminal command line | terminal, línea de comandos | terminal, ligne de commande | terminal, kommandozeile | terminale, riga di comando | terminal, linha de comando | طرفية, سطر الأوامر | टर्मिनल, कमांड लाइन | 터미널, 명령줄 | 终端, 命令行 | ターミナル, コマンドライン
command | comando, orden | commande | befehl | comando | comando | أمر | कमांड, आदेश | 명령, 명령어 | 命令 | コマンド
argument parameter | argumento, parámetro | argument, paramètre | argument, parameter | argomento, parametro | argumento, parâmetro | وسيط, معامل | आर्गुमेंट, पैरामीटर | 인자, 인수, 매개변수 | 参数 | 引数, パラメータ
environment | entorno | environnement | umgebung | ambiente | ambiente | بيئة | एनवायरनमेंट, परिवेश | 환경 | 环境 | 環境
path | ruta | chemin | pfad | percorso | caminho | مسار | पथ | 경로 | 路径 | パス
system | sistema | système | system | sistema | sistema | نظام | सिस्टम, प्रणाली | 시스템 | 系统 | システム
windows | windows | windows | windows | windows | windows | ويندوز | विंडोज़, विंडोज | 윈도우, 윈도우즈 | 视窗 | ウィンドウズ
mac macos | mac | mac | mac | mac | mac | ماك | मैक | 맥 | 苹果电脑 | マック
linux | linux | linux | linux | linux | linux | لينكس | लिनक्स | 리눅스 | linux | リナックス
computer machine | computadora, ordenador, máquina | ordinateur, machine | computer, rechner | computer | computador | حاسوب, كمبيوتر, جهاز | कंप्यूटर, मशीन | 컴퓨터 | 计算机, 电脑 | コンピュータ, パソコン
device | dispositivo | appareil, périphérique | gerät | dispositivo | dispositivo | جهاز | डिवाइस, उपकरण | 장치, 기기 | 设备 | デバイス, 端末
phone mobile | teléfono, móvil | téléphone, portable | telefon, handy | telefono, cellulare | telefone, celular | هاتف, جوال | फ़ोन, मोबाइल | 전화, 휴대폰 | 电话, 手机 | 電話, スマホ, 携帯
screen | pantalla | écran | bildschirm | schermo | tela | شاشة | स्क्रीन | 화면 | 屏幕 | 画面
keyboard keypress | teclado, tecla | clavier, touche | tastatur, taste | tastiera, tasto | teclado, tecla | لوحة المفاتيح | कीबोर्ड | 키보드 | 键盘, 按键 | キーボード
window | ventana | fenêtre | fenster | finestra | janela | نافذة | विंडो | 창 | 窗口 | ウィンドウ
button | botón | bouton | schaltfläche, knopf | pulsante | botão | زر | बटन | 버튼 | 按钮 | ボタン
image picture | imagen | image | bild | immagine | imagem | صورة | छवि, इमेज | 이미지, 그림 | 图像, 图片 | 画像
document | documento | document | dokument | documento | documento | مستند, وثيقة | दस्तावेज़ | 문서 | 文档 | 文書, ドキュメント
archive zip | archivo comprimido, zip | archive, zip | archiv, zip | archivio, zip | arquivo compactado, zip | أرشيف | आर्काइव, ज़िप | 압축 파일, 아카이브 | 压缩包, 归档 | アーカイブ, 圧縮ファイル
thread | hilo | thread, fil | thread, faden | thread | thread | خيط | थ्रेड | 스레드 | 线程 | スレッド
process | proceso | processus | prozess | processo | processo | عملية | प्रक्रिया, प्रोसेस | 프로세스 | 进程 | プロセス
cpu processor core | procesador, núcleo | processeur, cœur | prozessor, kern | processore, core | processador, núcleo | معالج, نواة | प्रोसेसर, कोर | 프로세서, 코어 | 处理器, 核心 | プロセッサ, コア
performance speed | rendimiento, velocidad | performance, vitesse | leistung, geschwindigkeit | prestazioni, velocità | desempenho, velocidade | أداء, سرعة | प्रदर्शन, गति | 성능, 속도 | 性能, 速度 | 性能, 速度, パフォーマンス
fast quick | rápido | rapide | schnell | veloce, rapido | rápido | سريع | तेज़, तेज | 빠르, 빠른 | 快, 快速 | 速い, 高速
slow | lento | lent | langsam | lento | lento | بطيء | धीमा | 느리, 느린 | 慢 | 遅い
time | tiempo, hora | temps, heure | zeit | tempo | tempo | وقت | समय | 시간 | 时间 | 時間
date | fecha | date | datum | data | data | تاريخ | तारीख़, दिनांक | 날짜 | 日期 | 日付
timezone | zona horaria | fuseau horaire | zeitzone | fuso orario | fuso horário | منطقة زمنية | समय क्षेत्र | 시간대 | 时区 | タイムゾーン
day | día | jour | tag | giorno | dia | يوم | दिन | 일, 날 | 天, 日 | 日
price cost | precio, costo, coste | prix, coût | preis, kosten | prezzo, costo | preço, custo | سعر, تكلفة | कीमत, लागत | 가격, 비용 | 价格, 费用 | 価格, 料金, 費用
payment pay | pago, pagar | paiement, payer | zahlung, bezahlen | pagamento, pagare | pagamento, pagar | دفع | भुगतान | 결제, 지불 | 付款, 支付 | 支払い, 払う
free | gratis, gratuito, libre | gratuit, libre | kostenlos, frei | gratis, gratuito, libero | grátis, gratuito, livre | مجاني, حر | मुफ़्त, मुफ्त | 무료 | 免费, 自由 | 無料, 無償
license | licencia | licence | lizenz | licenza | licença | ترخيص, رخصة | लाइसेंस | 라이선스, 라이센스 | 许可, 许可证 | ライセンス
commercial | comercial | commercial | kommerziell | commerciale | comercial | تجاري | व्यावसायिक | 상업, 상업적 | 商业 | 商用, 商業
order | pedido, orden | commande, ordre | bestellung, reihenfolge | ordine | pedido, ordem | طلب, ترتيب | ऑर्डर, क्रम | 주문, 순서 | 订单, 顺序 | 注文, 順序, 順番
shipping delivery | envío, entrega | livraison, expédition | versand, lieferung | spedizione, consegna | envio, entrega | شحن, توصيل | शिपिंग, डिलीवरी | 배송 | 发货, 运送, 配送 | 配送, 発送
product item | producto, artículo | produit, article | produkt, artikel | prodotto, articolo | produto, item | منتج | उत्पाद | 제품, 상품 | 产品, 商品 | 製品, 商品
refund | reembolso | remboursement | rückerstattung | rimborso | reembolso | استرداد, استرجاع | रिफंड, धनवापसी | 환불 | 退款 | 返金
return | devolver, devolución, retornar | retourner, renvoyer, retour | zurückgeben, rückgabe | restituire, reso, restituisce | devolver, devolução, retornar | إرجاع, يرجع | लौटाना, वापसी | 반환, 반품 | 返回, 退货 | 返す, 返品, 戻り値
customer | cliente | client | kunde | cliente | cliente | عميل, زبون | ग्राहक | 고객 | 客户, 顾客 | 顧客, お客様
support help | soporte, ayuda | support, aide | support, hilfe | supporto, aiuto | suporte, ajuda | دعم, مساعدة | सहायता, मदद | 지원, 도움 | 支持, 帮助 | サポート, ヘルプ
developer | desarrollador | développeur | entwickler | sviluppatore | desenvolvedor | مطور | डेवलपर | 개발자 | 开发者, 开发人员 | 開発者
beginner | principiante | débutant | anfänger | principiante | iniciante | مبتدئ | शुरुआती | 초보자 | 初学者 | 初心者
question | pregunta | question | frage | domanda | pergunta | سؤال | प्रश्न, सवाल | 질문 | 问题 | 質問
reason why | razón, motivo | raison | grund | motivo, ragione | razão, motivo | سبب | कारण | 이유 | 原因, 为什么 | 理由, なぜ
step | paso | étape | schritt | passo | passo | خطوة | चरण | 단계 | 步骤 | 手順, ステップ
standard | estándar | standard, norme | standard | standard | padrão | معيار | मानक | 표준 | 标准 | 標準
format | formato | format | format | formato | formato | تنسيق, صيغة | प्रारूप, फ़ॉर्मेट | 형식, 포맷 | 格式 | 形式, フォーマット
binary | binario | binaire | binär | binario | binário | ثنائي | बाइनरी | 바이너리, 이진 | 二进制 | バイナリ
executable | ejecutable | exécutable | ausführbar, ausführbare | eseguibile | executável | تنفيذي | एक्ज़ीक्यूटेबल | 실행 파일 | 可执行文件 | 実行ファイル
random | aleatorio | aléatoire | zufällig, zufallszahl | casuale | aleatório | عشوائي | यादृच्छिक, रैंडम | 무작위, 랜덤, 난수 | 随机 | 乱数, ランダム
empty | vacío | vide | leer | vuoto | vazio | فارغ | खाली | 빈, 비어 | 空 | 空
default | predeterminado, por defecto | défaut, par défaut | standard, voreinstellung | predefinito | padrão | افتراضي | डिफ़ॉल्ट | 기본, 기본값 | 默认 | デフォルト, 既定
local | local | local | lokal | locale | local | محلي | स्थानीय, लोकल | 로컬, 지역 | 本地, 局部 | ローカル
global | global | global | global | globale | global | عام, عالمي | ग्लोबल | 전역 | 全局 | グローバル
static | estático | statique | statisch | statico | estático | ثابت | स्टैटिक | 정적 | 静态 | 静的
parent base | padre, base | parent, base | eltern, basis, oberklasse | genitore, base | pai, base | أب, أساسي | पैरेंट, मूल | 부모, 상위 | 父, 父类, 基类 | 親, 基底
child subclass | hijo, subclase | enfant, sous-classe | kind, unterklasse | figlio, sottoclasse | filho, subclasse | ابن, فرعي | चाइल्ड, उपवर्ग | 자식, 하위 | 子, 子类 | 子, サブクラス
copy | copiar, copia | copier, copie | kopieren, kopie | copiare, copia | copiar, cópia | نسخ, نسخة | कॉपी, प्रतिलिपि | 복사 | 复制, 拷贝 | コピー, 複製
duplicate | duplicado, duplicar, repetido | doublon, dupliquer | duplikat, doppelt | duplicato | duplicado, duplicata | مكرر | डुप्लिकेट | 중복 | 重复 | 重複
reference | referencia | référence | referenz, verweis | riferimento | referência | مرجع | संदर्भ | 참조 | 引用 | 参照
expression | expresión | expression | ausdruck | espressione | expressão | تعبير | व्यंजक, एक्सप्रेशन | 표현식 | 表达式 | 式
statement | sentencia, instrucción | instruction | anweisung | istruzione | instrução | عبارة, تعليمة | स्टेटमेंट | 문, 구문 | 语句 | 文, ステートメント
operator | operador | opérateur | operator | operatore | operador | عامل, معامل | ऑपरेटर | 연산자 | 运算符 | 演算子
condition | condición | condition | bedingung | condizione | condição | شرط | शर्त | 조건 | 条件 | 条件
ternary | ternario | ternaire | ternär | ternario | ternário | ثلاثي | टर्नरी | 삼항 | 三元 | 三項
syntax | sintaxis | syntaxe | syntax | sintassi | sintaxe | صياغة, بناء الجملة | सिंटैक्स | 구문, 문법 | 语法 | 構文
indentation indent | sangría, indentación | indentation | einrückung | indentazione | indentação, recuo | مسافة بادئة | इंडेंटेशन | 들여쓰기 | 缩进 | インデント
block | bloque | bloc | block | blocco | bloco | كتلة | ब्लॉक | 블록 | 块, 代码块 | ブロック
request | solicitud, petición | requête, demande | anfrage | richiesta | requisição, solicitação | طلب | अनुरोध | 요청 | 请求 | リクエスト, 要求
response answer | respuesta | réponse | antwort | risposta | resposta | استجابة, رد | प्रतिक्रिया, उत्तर | 응답, 답변 | 响应, 回答 | 応答, レスポンス, 回答
protocol | protocolo | protocole | protokoll | protocollo | protocolo | بروتوكول | प्रोटोकॉल | 프로토콜 | 协议 | プロトコル
buffer | búfer | tampon | puffer | buffer | buffer | مخزن مؤقت | बफ़र | 버퍼 | 缓冲区 | バッファ
cache | caché | cache | cache | cache | cache | ذاكرة مؤقتة | कैश | 캐시 | 缓存 | キャッシュ
limit | límite | limite | grenze, limit | limite | limite | حد | सीमा | 제한 | 限制 | 制限
large big | grande | grand, gros | groß | grande | grande | كبير | बड़ा | 큰, 대용량 | 大 | 大きい, 大きな
small | pequeño | petit | klein | piccolo | pequeno | صغير | छोटा | 작은 | 小 | 小さい
multiple many several | varios, múltiples, muchos | plusieurs, multiples | mehrere, viele | più, molti, multipli | vários, múltiplos, muitos | عدة, متعدد | कई, अनेक | 여러 | 多个, 多 | 複数
all every | todos, todo, cada | tous, tout, chaque | alle, jede | tutti, tutto, ogni | todos, todo, cada | كل, جميع | सभी, हर | 모든, 매 | 所有, 每, 全部 | すべて, 全て, 全部, 毎
first | primero | premier | erste | primo | primeiro | أول | पहला | 첫, 처음 | 第一, 首先 | 最初
last latest | último | dernier | letzte | ultimo | último | آخر, أخير | आखिरी, अंतिम | 마지막, 최근 | 最后, 最近 | 最後, 直前, 最新
new | nuevo | nouveau | neu | nuovo | novo | جديد | नया | 새, 새로운 | 新, 新的 | 新しい
old | viejo, antiguo | ancien, vieux | alt | vecchio | antigo, velho | قديم | पुराना | 이전, 오래된 | 旧, 旧的 | 古い
same | mismo | même | gleich, selbe | stesso | mesmo | نفس | समान, वही | 같은, 동일 | 相同, 同一 | 同じ
different other | diferente, distinto, otro | différent, autre | anders, verschieden, andere | diverso, altro | diferente, outro | مختلف, آخر | अलग, दूसरा | 다른 | 不同, 其他, 另一个 | 違う, 異なる, 別, 他
wrong incorrect | incorrecto, equivocado, mal | faux, incorrect, erroné | falsch | sbagliato, errato | errado, incorreto | خاطئ, خطأ | गलत | 잘못 | 错, 错误 | 間違い, 間違って, 誤った
correct | correcto | correct | richtig, korrekt | corretto | correto | صحيح | सही | 올바른 | 正确 | 正しい
easy simple | fácil, sencillo, simple | facile, simple | einfach | facile, semplice | fácil, simples | سهل, بسيط | आसान, सरल | 쉬운, 간단 | 简单, 容易 | 簡単
safe | seguro | sûr | sicher | sicuro | seguro | آمن | सुरक्षित | 안전 | 安全 | 安全
automatic automatically | automático, automáticamente | automatique, automatiquement | automatisch | automatico, automaticamente | automático, automaticamente | تلقائي, تلقائيا | स्वचालित | 자동, 자동으로 | 自动 | 自動, 自動的
always | siempre | toujours | immer | sempre | sempre | دائما, دائمًا | हमेशा | 항상 | 总是, 一直 | 常に, いつも
again | otra vez, de nuevo | encore, à nouveau | wieder, erneut | di nuovo, ancora | novamente, de novo | مرة أخرى | फिर से, दोबारा | 다시 | 再次, 重新 | 再, 再び, もう一度
instead | en lugar, en vez | au lieu | statt, anstatt | invece | em vez, ao invés | بدلا, بدلاً | के बजाय | 대신 | 代替, 而不是 | 代わり
install | instalar, instalación | installer, installation | installieren, installation | installare, installazione | instalar, instalação | تثبيت | इंस्टॉल, स्थापित | 설치 | 安装 | インストール
uninstall | desinstalar | désinstaller | deinstallieren | disinstallare | desinstalar | إلغاء التثبيت | अनइंस्टॉल | 제거 | 卸载 | アンインストール
update upgrade | actualizar, actualización | mettre à jour, mise à jour | aktualisieren, update | aggiornare, aggiornamento | atualizar, atualização | تحديث | अपडेट | 업데이트, 갱신 | 更新, 升级 | 更新, アップデート
download | descargar, descarga | télécharger, téléchargement | herunterladen, download | scaricare, download | baixar, download | تنزيل, تحميل | डाउनलोड | 다운로드 | 下载 | ダウンロード
upload | subir, cargar | téléverser, envoyer | hochladen | caricare | enviar, carregar | رفع | अपलोड | 업로드 | 上传 | アップロード
delete remove | borrar, eliminar, quitar | supprimer, effacer, enlever, retirer | löschen, entfernen | eliminare, cancellare, rimuovere | excluir, apagar, remover | حذف, إزالة | हटाना, डिलीट, मिटाना | 삭제, 제거, 지우 | 删除, 移除, 去掉, 去除 | 削除, 消す, 取り除く
create make | crear, hacer | créer, faire | erstellen, erzeugen, machen | creare, fare | criar, fazer | إنشاء, صنع | बनाना, बनाएं | 만들, 생성 | 创建, 建立, 制作 | 作成, 作る
add | añadir, agregar | ajouter | hinzufügen | aggiungere | adicionar | إضافة | जोड़ना, जोड़ें | 추가 | 添加, 加 | 追加, 加える
edit | editar | éditer, modifier | bearbeiten | modificare | editar | تحرير | संपादित | 편집, 수정 | 编辑 | 編集
save store | guardar, almacenar | enregistrer, sauvegarder, stocker | speichern | salvare, memorizzare | salvar, guardar, armazenar | حفظ, تخزين | सहेजना, सेव | 저장 | 保存, 存储 | 保存
open | abrir | ouvrir | öffnen | aprire | abrir | فتح | खोलना | 열기, 열 | 打开 | 開く
close | cerrar | fermer | schließen | chiudere | fechar | إغلاق | बंद | 닫기 | 关闭 | 閉じる
run execute | ejecutar, correr | exécuter, lancer | ausführen, laufen | eseguire | executar, rodar | تشغيل, تنفيذ | चलाना, रन | 실행 | 运行, 执行 | 実行, 動かす
start | iniciar, empezar, arrancar | démarrer, commencer | starten, beginnen | avviare, iniziare | iniciar, começar | بدء, تشغيل | शुरू | 시작 | 开始, 启动 | 開始, 起動
stop | detener, parar | arrêter | stoppen, anhalten | fermare | parar | إيقاف | रोकना | 중지, 멈추 | 停止 | 停止, 止める
build compile | compilar, construir | compiler, construire | kompilieren, bauen | compilare | compilar | ترجمة, بناء | कंपाइल, बिल्ड | 컴파일, 빌드 | 编译, 构建 | コンパイル, ビルド
move | mover | déplacer | verschieben | spostare | mover | نقل | ले जाना, स्थानांतरित | 이동 | 移动 | 移動
rename | renombrar | renommer | umbenennen | rinominare | renomear | إعادة تسمية | नाम बदलना | 이름 변경 | 重命名 | 名前を変更
find search | buscar, encontrar | chercher, trouver, rechercher | finden, suchen | cercare, trovare | encontrar, procurar, buscar | بحث, إيجاد | खोजना, ढूंढना | 찾기, 검색 | 查找, 搜索, 找 | 検索, 探す, 見つける
replace | reemplazar, sustituir | remplacer | ersetzen | sostituire | substituir | استبدال | बदलना | 교체, 바꾸기 | 替换 | 置換, 置き換え
read | leer | lire | lesen | leggere | ler | قراءة | पढ़ना | 읽기, 읽 | 读取, 读 | 読む, 読み込む, 読み込み
write | escribir | écrire | schreiben | scrivere | escrever | كتابة | लिखना | 쓰기, 작성 | 写, 写入 | 書く, 書き込む
send | enviar, mandar | envoyer | senden, schicken | inviare | enviar | إرسال | भेजना | 보내, 전송 | 发送 | 送信, 送る
receive | recibir | recevoir | empfangen, erhalten | ricevere | receber | استلام, تلقي | प्राप्त | 받기, 수신 | 接收 | 受信, 受け取る
import | importar | importer | importieren | importare | importar | استيراد | इम्पोर्ट, आयात | 임포트, 가져오기 | 导入 | インポート
export | exportar | exporter | exportieren | esportare | exportar | تصدير | एक्सपोर्ट, निर्यात | 내보내기 | 导出 | エクスポート
convert | convertir, conversión | convertir, conversion | konvertieren, umwandeln | convertire | converter | تحويل | बदलना, कन्वर्ट | 변환 | 转换 | 変換
compare | comparar | comparer | vergleichen | confrontare | comparar | مقارنة | तुलना | 비교 | 比较 | 比較
sort | ordenar | trier | sortieren | ordinare | ordenar | ترتيب, فرز | सॉर्ट, क्रमबद्ध | 정렬 | 排序 | ソート, 並べ替え
split | dividir, separar | diviser, séparer | teilen, aufteilen | dividere | dividir | تقسيم | विभाजित | 분할, 나누 | 分割, 拆分 | 分割
join concatenate | unir, concatenar | joindre, concaténer | verbinden, verketten | unire, concatenare | juntar, concatenar | ربط, دمج | जोड़ना | 결합, 연결 | 连接, 拼接 | 結合, 連結
check verify | comprobar, verificar | vérifier | prüfen, überprüfen | controllare, verificare | verificar, checar | تحقق, فحص | जाँच, जांचना | 확인, 검사 | 检查, 验证 | 確認, チェック
test | probar, prueba | tester, test | testen, test | testare, test | testar, teste | اختبار | परीक्षण, टेस्ट | 테스트 | 测试 | テスト
debug debugger | depurar, depurador | déboguer, débogueur | debuggen, debugger | debug, debugger | depurar, depurador | تصحيح | डीबग | 디버그, 디버깅, 디버거 | 调试, 调试器 | デバッグ, デバッガ
fix repair correct | arreglar, corregir, reparar | corriger, réparer | beheben, reparieren, korrigieren | correggere, riparare, sistemare | corrigir, consertar | إصلاح | ठीक करना, सुधारना | 수정, 고치 | 修复, 修正, 修改 | 修正, 直す
undo revert | deshacer, revertir | annuler, défaire | rückgängig | annullare | desfazer, reverter | تراجع, التراجع | पूर्ववत | 되돌리, 취소 | 撤销, 还原, 撤回 | 元に戻す, 取り消す, 取り消し
cancel | cancelar | annuler | abbrechen, stornieren | annullare | cancelar | إلغاء | रद्द | 취소 | 取消 | キャンセル
reset | restablecer, reiniciar | réinitialiser | zurücksetzen | reimpostare | redefinir | إعادة تعيين | रीसेट | 재설정, 초기화 | 重置 | リセット
restore recover | restaurar, recuperar | restaurer, récupérer | wiederherstellen | ripristinare, recuperare | restaurar, recuperar | استعادة | पुनर्स्थापित | 복원, 복구 | 恢复 | 復元, 復旧
backup | copia de seguridad, respaldo | sauvegarde | sicherung, backup | backup | backup, cópia de segurança | نسخ احتياطي | बैकअप | 백업 | 备份 | バックアップ
configure setup | configurar | configurer | konfigurieren, einrichten | configurare | configurar | تكوين, إعداد | कॉन्फ़िगर | 설정, 구성 | 配置, 设置 | 設定, 構成
enable | habilitar, activar | activer | aktivieren | abilitare, attivare | habilitar, ativar | تمكين, تفعيل | सक्षम | 활성화 | 启用 | 有効
disable | deshabilitar, desactivar | désactiver | deaktivieren | disabilitare | desabilitar, desativar | تعطيل | अक्षम | 비활성화 | 禁用 | 無効
allow | permitir | permettre, autoriser | erlauben | consentire, permettere | permitir | سماح | अनुमति देना | 허용 | 允许 | 許可
prevent block | impedir, evitar, bloquear | empêcher, bloquer | verhindern, blockieren | impedire, bloccare | impedir, bloquear | منع | रोकना | 막기, 방지 | 阻止, 防止 | 防ぐ, 禁止, ブロック
ignore | ignorar | ignorer | ignorieren | ignorare | ignorar | تجاهل | अनदेखा | 무시 | 忽略 | 無視
track tracked | rastrear, seguimiento | suivre, suivi | verfolgen | tracciare | rastrear | تتبع | ट्रैक | 추적 | 跟踪 | 追跡
push | empujar, push | pousser, push | push, pushen | push | push, enviar | دفع | पुश | 푸시 | 推送 | プッシュ
pull | pull, traer | tirer, pull | pull, ziehen | pull | pull, puxar | سحب | पुल | 풀 | 拉取 | プル
clone | clonar | cloner | klonen | clonare | clonar | استنساخ | क्लोन | 복제, 클론 | 克隆 | クローン
iterate | iterar, recorrer | itérer, parcourir | iterieren, durchlaufen | iterare, scorrere | iterar, percorrer | تكرار | इटरेट | 반복 | 遍历, 迭代 | 反復, 繰り返す
reverse | inverso, invertir | inverse, inverser | umgekehrt, umkehren | inverso, invertire | inverso, inverter | عكس | उल्टा | 역순, 거꾸로 | 反向, 倒序, 逆序 | 逆, 逆順
call | llamar, llamada | appeler, appel | aufrufen, aufruf | chiamare, chiamata | chamar, chamada | استدعاء | कॉल | 호출 | 调用 | 呼び出す, 呼び出し
define | definir | définir | definieren | definire | definir | تعريف | परिभाषित | 정의 | 定义 | 定義
assign assignment | asignar, asignación | affecter, affectation | zuweisen, zuweisung | assegnare, assegnazione | atribuir, atribuição | تعيين, إسناد | असाइन | 할당 | 赋值 | 代入
raise throw | lanzar, generar | lever, lancer | auslösen, werfen | sollevare, lanciare | lançar, levantar | رمي, إطلاق | थ्रो | 발생, 던지 | 抛出 | 投げる, 送出
catch handle | capturar, manejar | attraper, gérer | abfangen, behandeln | catturare, gestire | capturar, tratar | التقاط, معالجة | संभालना | 처리, 잡기 | 捕获, 处理 | 捕捉, 処理
generate | generar | générer | erzeugen, generieren | generare | gerar | توليد | उत्पन्न, जनरेट | 생성 | 生成 | 生成
calculate compute | calcular | calculer | berechnen | calcolare | calcular | حساب | गणना | 계산 | 计算 | 計算
count | contar | compter | zählen | contare | contar | عد | गिनना | 세기, 개수 | 计数, 数量 | 数える, 個数
encode | codificar | encoder | kodieren | codificare | codificar | ترميز | एन्कोड | 인코딩 | 编码 | エンコード
decode | decodificar | décoder | dekodieren | decodificare | decodificar | فك الترميز | डिकोड | 디코딩 | 解码 | デコード
encrypt | cifrar, encriptar | chiffrer | verschlüsseln | crittografare, cifrare | criptografar | تشفير | एन्क्रिप्ट | 암호화 | 加密 | 暗号化
compress | comprimir, compresión | compresser, compression | komprimieren, kompression | comprimere, compressione | comprimir, compressão | ضغط | संपीड़ित, कंप्रेस | 압축 | 压缩 | 圧縮
decompress extract | descomprimir, extraer | décompresser, extraire | dekomprimieren, entpacken | decomprimere, estrarre | descompactar, extrair | فك الضغط, استخراج | डीकंप्रेस, निकालना | 압축 해제, 추출 | 解压, 提取 | 解凍, 展開, 抽出
load | cargar | charger | laden | caricare | carregar | تحميل | लोड | 로드, 불러오기 | 加载 | 読み込む, ロード
show display | mostrar, ver | afficher, montrer, voir | anzeigen, zeigen | mostrare, visualizzare | mostrar, exibir | عرض, إظهار | दिखाना | 표시, 보기 | 显示 | 表示
hide | ocultar | masquer, cacher | ausblenden, verstecken | nascondere | ocultar, esconder | إخفاء | छिपाना | 숨기기 | 隐藏 | 隠す, 非表示
use | usar, utilizar, uso | utiliser | verwenden, benutzen, nutzen | usare, utilizzare | usar, utilizar | استخدام | उपयोग, इस्तेमाल | 사용 | 使用, 用 | 使う, 使用, 利用
get obtain | obtener, conseguir | obtenir, récupérer | bekommen, erhalten, abrufen | ottenere | obter, conseguir | الحصول | प्राप्त करना | 얻기, 가져오기 | 获取, 得到 | 取得, 得る
choose select | elegir, seleccionar | choisir, sélectionner | auswählen, wählen | scegliere, selezionare | escolher, selecionar | اختيار | चुनना | 선택 | 选择 | 選択, 選ぶ
set | establecer, fijar | définir, fixer | setzen, festlegen | impostare | definir | تعيين, ضبط | सेट | 설정 | 设置 | 設定
access | acceder, acceso | accéder, accès | zugreifen, zugriff | accedere, accesso | acessar, acesso | وصول | एक्सेस, पहुंच | 접근, 액세스 | 访问 | アクセス
manage | gestionar, administrar | gérer | verwalten | gestire | gerenciar, gerir | إدارة | प्रबंधित | 관리 | 管理 | 管理
protect | proteger | protéger | schützen | proteggere | proteger | حماية | सुरक्षित करना | 보호 | 保护 | 保護
wait | esperar | attendre | warten | aspettare | esperar | انتظار | इंतज़ार | 대기, 기다리 | 等待 | 待つ
fail failure | fallar, falla | échouer, échec | fehlschlagen | fallire | falhar, falha | فشل | विफल | 실패 | 失败 | 失敗
crash | bloquearse, fallo | planter, plantage | absturz, abstürzen | crash, arresto | travar, falha | تعطل | क्रैश | 충돌, 크래시 | 崩溃 | クラッシュ
work works | funcionar | fonctionner, marcher | funktionieren | funzionare | funcionar | يعمل | काम करना | 작동 | 工作, 运行 | 動作, 動く
print | imprimir | imprimer, afficher | drucken, ausgeben | stampare | imprimir | طباعة | प्रिंट | 출력, 인쇄 | 打印 | 出力, 印刷
parse | analizar, parsear | analyser, parser | parsen, analysieren | analizzare | analisar | تحليل | पार्स | 파싱, 구문 분석 | 解析 | 解析, パース
hash | hash | hachage | hash | hash | hash | تجزئة | हैश | 해시 | 哈希 | ハッシュ
encoding unicode | unicode | unicode | unicode | unicode | unicode | يونيكود | यूनिकोड | 유니코드 | 统一码 | ユニコード
newline line ending | salto de línea, fin de línea | saut de ligne, fin de ligne | zeilenumbruch, zeilenende | fine riga, a capo | quebra de linha, fim de linha | سطر جديد, نهاية السطر | नई पंक्ति | 줄바꿈, 개행 | 换行, 换行符 | 改行
case uppercase lowercase | mayúsculas, minúsculas | majuscules, minuscules, casse | groß, kleinschreibung | maiuscole, minuscole | maiúsculas, minúsculas | أحرف كبيرة, أحرف صغيرة | अपरकेस, लोअरकेस | 대소문자 | 大小写 | 大文字, 小文字
modified | modificado | modifié | geändert | modificato | modificado | معدل, معدّل | संशोधित | 수정됨 | 已修改 | 変更済み
accident accidentally mistake | error, por error, accidentalmente | par erreur, accidentellement | versehentlich, aus versehen | per errore, accidentalmente | por engano, acidentalmente | عن طريق الخطأ | गलती से | 실수로 | 不小心, 意外 | 誤って, うっかり
secret | secreto | secret | geheimnis, geheim | segreto | segredo | سر, سري | गुप्त, सीक्रेट | 비밀 | 秘密 | 秘密, シークレット
ssh | ssh | ssh | ssh | ssh | ssh | ssh | एसएसएच | ssh | ssh | ssh
http https | http, https | http, https | http, https | http, https | http, https | http | एचटीटीपी | http | http | http
python | python | python | python | python | python | بايثون, بيثون | पायथन | 파이썬 | python | パイソン
java | java | java | java | java | java | جافا | जावा | 자바 | java | ジャバ
javascript | javascript | javascript | javascript | javascript | javascript | جافا سكريبت | जावास्क्रिप्ट | 자바스크립트 | javascript | ジャバスクリプト
google | google | google | google | google | google | جوجل | गूगल | 구글 | 谷歌 | グーグル
microsoft | microsoft | microsoft | microsoft | microsoft | microsoft | مايكروسوفت | माइक्रोसॉफ्ट | 마이크로소프트 | 微软 | マイクロソフト
apple | apple | apple | apple | apple | apple | آبل, أبل | एप्पल | 애플 | 苹果 | アップル
team | equipo | équipe | team | squadra, team | equipe | فريق | टीम | 팀 | 团队 | チーム
company | empresa, compañía | entreprise, société | unternehmen, firma | azienda, società | empresa | شركة | कंपनी | 회사 | 公司 | 会社, 企業
employee | empleado | employé, salarié | mitarbeiter | dipendente | funcionário | موظف | कर्मचारी | 직원 | 员工 | 従業員, 社員
manager | gerente, jefe | responsable, manager | vorgesetzter, manager | responsabile | gerente | مدير | प्रबंधक, मैनेजर | 관리자, 매니저 | 经理 | マネージャー, 上司
vacation holiday | vacaciones | vacances, congés | urlaub | ferie, vacanze | férias | إجازة | छुट्टी | 휴가 | 假期, 休假 | 休暇
leave | permiso, baja | congé | urlaub, freistellung | permesso, congedo | licença | إجازة | अवकाश | 휴가 | 请假 | 休暇
salary | salario, sueldo | salaire | gehalt | stipendio | salário | راتب | वेतन | 급여, 월급 | 工资, 薪水 | 給与, 給料
contract | contrato | contrat | vertrag | contratto | contrato | عقد | अनुबंध | 계약 | 合同 | 契約
law legal | ley, legal | loi, juridique | gesetz, rechtlich | legge, legale | lei, legal | قانون, قانوني | कानून, कानूनी | 법, 법률 | 法律 | 法律
privacy | privacidad | confidentialité, vie privée | datenschutz | privacy | privacidade | خصوصية | गोपनीयता | 개인정보 | 隐私 | プライバシー
invoice receipt | factura, recibo | facture, reçu | rechnung, quittung | fattura, ricevuta | fatura, recibo | فاتورة, إيصال | चालान, रसीद | 청구서, 영수증 | 发票, 收据 | 請求書, 領収書
subscription | suscripción | abonnement | abonnement | abbonamento | assinatura | اشتراك | सदस्यता | 구독 | 订阅 | サブスクリプション, 定期購読
discount coupon | descuento, cupón | réduction, remise, coupon | rabatt, gutschein | sconto, coupon | desconto, cupom | خصم, قسيمة | छूट, कूपन | 할인, 쿠폰 | 折扣, 优惠券 | 割引, クーポン
warranty | garantía | garantie | garantie | garanzia | garantia | ضمان | वारंटी | 보증 | 保修 | 保証
address | dirección | adresse | adresse | indirizzo | endereço | عنوان | पता | 주소 | 地址 | 住所, アドレス
card | tarjeta | carte | karte | carta | cartão | بطاقة | कार्ड | 카드 | 卡 | カード
week | semana | semaine | woche | settimana | semana | أسبوع | सप्ताह, हफ्ता | 주 | 周, 星期 | 週
month | mes | mois | monat | mese | mês | شهر | महीना | 월, 달 | 月 | 月, ヶ月
year | año | an, année | jahr | anno | ano | سنة, عام | साल, वर्ष | 년, 연 | 年 | 年
hour | hora | heure | stunde | ora | hora | ساعة | घंटा | 시간 | 小时 | 時間
money | dinero | argent | geld | soldi, denaro | dinheiro | مال, أموال | पैसा, पैसे | 돈 | 钱 | お金
broken damaged | roto, dañado | cassé, endommagé | kaputt, beschädigt | rotto, danneggiato | quebrado, danificado | مكسور, تالف | टूटा, खराब | 고장, 파손 | 坏, 损坏 | 壊れた, 故障
lost | perdido | perdu | verloren | perso | perdido | مفقود, ضائع | खोया | 분실, 잃어버린 | 丢失 | 紛失, 失くした
`;
