#include "gui/run_dialog.h"

#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QMessageBox>
#include <QVBoxLayout>

#include "core/error.h"
#include "core/gpu_spec.h"
#include "sim/duration_model.h"
#include "sim/policy.h"
#include "sim/registry.h"

namespace gpusched::gui {

RunDialog::RunDialog(const QString& db_path, QWidget* parent)
    : QDialog(parent),
      db_path_(db_path),
      workload_(new QLineEdit(this)),
      gpu_(new QComboBox(this)),
      policies_(new QListWidget(this)),
      interference_(new QComboBox(this)),
      seed_(new QSpinBox(this)),
      keep_blocks_(new QCheckBox(tr("keep every block (for timelines)"), this)),
      progress_(new QProgressBar(this)),
      status_(new QLabel(this)),
      run_(new QPushButton(tr("Run"), this)),
      cancel_(new QPushButton(tr("Cancel run"), this)),
      close_(new QPushButton(tr("Close"), this)) {
  setWindowTitle(tr("Run simulations"));
  auto* layout = new QVBoxLayout(this);
  auto* form = new QFormLayout;
  auto* file_row = new QHBoxLayout;
  auto* browse = new QPushButton(tr("Browse..."), this);
  file_row->addWidget(workload_, 1);
  file_row->addWidget(browse);
  form->addRow(tr("Workload file:"), file_row);
  gpu_->setEditable(true);
  gpu_->addItem(tr("(the workload's)"), QString());
  for (const auto& g : gpu_presets()) gpu_->addItem(QString::fromStdString(g.name), QString::fromStdString(g.name));
  gpu_->setToolTip(tr("a preset, or the path of a GPU file"));
  form->addRow(tr("GPU:"), gpu_);
  for (const auto* info : sim::Registry<sim::Policy>::instance().all()) {
    auto* item = new QListWidgetItem(QString::fromStdString(info->name), policies_);
    item->setToolTip(QString::fromStdString(info->description));
    item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
    item->setCheckState(Qt::Checked);
  }
  policies_->setMinimumHeight(160);
  form->addRow(tr("Policies:"), policies_);
  // auto, as on the command line: equivalent where the workload's kernels have fitted weights (gpu_wide=on where
  // they also have the GPU-wide fit), else age where they have co-run records beside them, else none.
  interference_->addItem(QStringLiteral("auto"));
  interference_->setItemData(
      0,
      tr("equivalent where the workload's kernels' profiles have fitted weights (gpu_wide=on where they also "
         "have the GPU-wide fit), else age where they have co-run records beside them, else none"),
      Qt::ToolTipRole);
  for (const auto* info : sim::Registry<sim::DurationModel>::instance().all())
    interference_->addItem(QString::fromStdString(info->name));
  interference_->setCurrentText(QStringLiteral("auto"));
  form->addRow(tr("Interference:"), interference_);
  seed_->setRange(0, 1'000'000'000);
  seed_->setValue(1);
  form->addRow(tr("Seed:"), seed_);
  keep_blocks_->setChecked(true);
  form->addRow(QString(), keep_blocks_);
  form->addRow(tr("Store:"), new QLabel(db_path, this));
  layout->addLayout(form);
  layout->addWidget(progress_);
  layout->addWidget(status_);
  auto* buttons = new QHBoxLayout;
  buttons->addStretch();
  buttons->addWidget(run_);
  buttons->addWidget(cancel_);
  buttons->addWidget(close_);
  layout->addLayout(buttons);
  progress_->setRange(0, 1000);
  progress_->setValue(0);
  run_->setDefault(true);
  connect(browse, &QPushButton::clicked, this, &RunDialog::browseWorkload);
  connect(run_, &QPushButton::clicked, this, &RunDialog::start);
  connect(cancel_, &QPushButton::clicked, this, &RunDialog::cancel);
  connect(close_, &QPushButton::clicked, this, &QDialog::reject);
  setRunning(false);
}

RunDialog::~RunDialog() {
  if (thread_) {
    cancel();
    thread_->wait();
  }
}

void RunDialog::setWorkloadFile(const QString& path) {
  workload_->setText(path);
}

void RunDialog::setGpu(const QString& gpu) {
  const int i = gpu_->findData(gpu);
  if (i >= 0)
    gpu_->setCurrentIndex(i);
  else
    gpu_->setEditText(gpu);
}

void RunDialog::setPolicies(const QStringList& policies) {
  for (int i = 0; i < policies_->count(); ++i)
    policies_->item(i)->setCheckState(policies.contains(policies_->item(i)->text()) ? Qt::Checked : Qt::Unchecked);
}

SimJobRequest RunDialog::request() const {
  SimJobRequest r;
  r.workload_file = workload_->text().trimmed().toStdString();
  const int i = gpu_->currentIndex();
  r.gpu = (i >= 0 && gpu_->itemText(i) == gpu_->currentText() ? gpu_->itemData(i).toString() : gpu_->currentText())
              .trimmed()
              .toStdString();
  for (int k = 0; k < policies_->count(); ++k)
    if (policies_->item(k)->checkState() == Qt::Checked) r.policies.push_back(policies_->item(k)->text().toStdString());
  r.interference = interference_->currentText().toStdString();
  r.seed = static_cast<std::uint64_t>(seed_->value());
  r.keep_blocks = keep_blocks_->isChecked();
  r.db_path = db_path_.toStdString();
  return r;
}

void RunDialog::browseWorkload() {
  const QString path = QFileDialog::getOpenFileName(this, tr("Workload file"), workload_->text(),
                                                    tr("Workloads (*.toml);;All files (*)"));
  if (!path.isEmpty()) workload_->setText(path);
}

void RunDialog::setRunning(bool running) {
  run_->setEnabled(!running);
  close_->setEnabled(!running);
  cancel_->setEnabled(running);
  for (QWidget* w : std::initializer_list<QWidget*>{workload_, gpu_, policies_, interference_, seed_, keep_blocks_})
    w->setEnabled(!running);
}

void RunDialog::start() {
  if (thread_) return;
  const SimJobRequest req = request();
  if (req.workload_file.empty()) {
    finish(false, tr("Choose a workload file."), {});
    return;
  }
  last_error_.clear();
  cancelled_ = std::make_shared<std::atomic<bool>>(false);
  progress_->setValue(0);
  status_->setText(tr("Starting..."));
  setRunning(true);
  auto cancelled = cancelled_;
  // The worker talks to the dialog only through queued calls: the dialog's widgets stay on the GUI thread.
  thread_ = QThread::create([this, req, cancelled] {
    QString message;
    bool ok = false;
    QList<qint64> ids;
    try {
      const auto result = run_sim_job(req, [this, cancelled](const SimJobProgress& p) {
        const int value = static_cast<int>(p.fraction * 1000);
        const QString text = p.policy.empty() ? tr("Storing...")
                                              : tr("Simulating %1 (%2 of %3)")
                                                    .arg(QString::fromStdString(p.policy))
                                                    .arg(p.policy_index + 1)
                                                    .arg(p.policy_count);
        QMetaObject::invokeMethod(
            this,
            [this, value, text] {
              progress_->setValue(value);
              status_->setText(text);
            },
            Qt::QueuedConnection);
        return !cancelled->load();
      });
      for (auto id : result.run_ids) ids.push_back(id);
      ok = true;
      message = tr("%n run(s) stored.", nullptr, static_cast<int>(ids.size()));
      for (const auto& w : result.warnings) message += QStringLiteral("\n") + QString::fromStdString(w);
    } catch (const SimJobCancelled&) {
      message = tr("Cancelled; runs finished before were stored.");
    } catch (const std::exception& e) {
      message = QString::fromStdString(e.what());
    }
    QMetaObject::invokeMethod(
        this, [this, ok, message, ids] { finish(ok, message, ids); }, Qt::QueuedConnection);
  });
  thread_->start();
}

void RunDialog::cancel() {
  if (cancelled_) cancelled_->store(true);
  status_->setText(tr("Cancelling..."));
}

void RunDialog::finish(bool ok, const QString& message, const QList<qint64>& ids) {
  if (thread_) {
    thread_->wait();
    delete thread_;
    thread_ = nullptr;
  }
  setRunning(false);
  status_->setText(message);
  if (ok) progress_->setValue(1000);
  if (!ids.isEmpty()) Q_EMIT runsStored(ids);
  if (!ok) {
    last_error_ = message;
    if (show_error_dialogs_) QMessageBox::critical(this, tr("Run failed"), message);
  }
  Q_EMIT jobFinished(ok, message);
}

}  // namespace gpusched::gui
